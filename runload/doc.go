// Package runload reads a finished (or cut) run folder's rows for the figures: it makes a
// cut run whole first (rowfile.Recover), streams requests.parquet (rowfile.RowsReused) into
// analysis' aggregator (analysis.LoadRows), and reads two folders' rows into the paired
// tests' per-request values. While it loads, the garbage collector runs at a lower target
// (gc.go): the aggregation's samples grow with the run and hold no pointers.
//
// Why a package of its own: reading Parquet links parquet-go, whose codec table links
// andybalholm/brotli and with it net/http. analysis computes figures and draws pages and must
// link no network code (internal/deps holds it), so it takes rows from its caller; this is
// the one place that opens the file for it. It computes nothing itself and writes nothing
// but what rowfile.Recover rebuilds.
package runload
