package runner

import "fmt"

// fdReserve is the descriptors a run keeps for itself beside its connections: the results
// files, the scraper's connection, the trace, the tokenizer, the Go runtime's own.
const fdReserve = 64

// clientLimit is the most requests this process can hold in flight, and why: each holds a
// socket (two with the in-process simulator, which serves from the same descriptor table) and,
// to one endpoint, an ephemeral port. Past it a send would fail on this machine's limit and
// look like the endpoint's failure, so the scheduler holds sends there instead. 0 means no
// limit is known (the platform does not say).
func clientLimit(simulated bool) (int, string) {
	perConn := 1
	if simulated {
		perConn = 2
	}
	limit, why := 0, ""
	if nofile := openFileLimit(); nofile > 0 {
		limit = max(1, (nofile-fdReserve)/perConn)
		why = fmt.Sprintf("%d open files (ulimit -n)", nofile)
		if simulated {
			why += ", two per connection with the in-process simulator"
		}
	}
	if ports := ephemeralPorts(); ports > 0 && (limit == 0 || ports-fdReserve < limit) {
		limit = max(1, ports-fdReserve)
		why = fmt.Sprintf("%d ephemeral ports", ports)
	}
	return limit, why
}
