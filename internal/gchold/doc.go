// Package gchold holds the garbage collector back while a schedule runs: one process-wide hold
// (a memory limit with proportional collection off, shared by overlapping runs and put back by
// the last), and the memory this process may use (the cgroup's limit, else MemTotal), which
// the hold and the run's plan budget are sized by. It owns the collector's settings during a
// run and nothing else; it must not know about requests, schedules or runs.
package gchold
