// Package runfolder owns a run's folder on disk: the name of every file replay writes there
// (requests.parquet, summary.json, report.html, the studies' files...), defined once, and the
// one atomic write that puts a whole file in place (a temporary file beside it, written and
// synced, renamed over the name, the folder synced), so that a reader, or a merge after a
// power loss, sees the old file or the new one and never half of one.
//
// It knows names and bytes, not formats: what goes in each file is its owner's (results,
// analysis, shard, the studies). It must not import any package of the module.
package runfolder
