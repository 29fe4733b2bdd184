// Package prefixcache replays a trace's prefix block hashes through an idealized prefix cache
// (infinite, or LRU of N blocks) and counts block hits: the upper bound on what prefix caching
// can save for that traffic. It owns only this counting; it knows nothing of engines, HTTP or
// files, and gets hashes from trace records (ingest) and gives numbers to cmd and analysis.
package prefixcache
