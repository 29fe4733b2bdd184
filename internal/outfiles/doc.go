// Package outfiles creates the files a job writes (trace files, Parquet or Arrow by their
// name, and plain files) and, when the job fails, removes those that would look complete
// though they are not. It is shared by ingest's and requestlog's conversion jobs; it must not
// know what the jobs read or write beyond opening and closing files.
package outfiles
