// Package pqcheck checks the parts of a Parquet file that parquet-go sizes its allocations by
// (the footer's Thrift lengths, each page header's sizes and value counts, a Snappy page's
// length prefix) before parquet-go reads them, so a damaged or hostile file is an error
// instead of a multi-gigabyte allocation, a stall or a crash. Every reader of Parquet input
// opens files through Open.
//
// It owns only these checks; it must not decode values or know any schema.
package pqcheck
