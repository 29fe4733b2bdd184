package client

import "fmt"

// FDReserve is the descriptors a run keeps for itself beside its connections: the results
// files, the scraper's connection, the trace, the tokenizer, the Go runtime's own.
const FDReserve = 64

// InFlightLimit is the most requests this process can hold in flight, and why: each holds a
// socket (two with an in-process simulator, which serves from the same descriptor table) and,
// to one endpoint, an ephemeral port. Past it a send would fail on this machine's limit and
// look like the endpoint's failure, so the scheduler holds sends there instead. 0 means no
// limit is known (the platform does not say).
func InFlightLimit(simulated bool) (int, string) {
	perConn := 1
	if simulated {
		perConn = 2
	}
	limit, why := 0, ""
	if nofile := OpenFileLimit(); nofile > 0 {
		limit = max(1, (nofile-FDReserve)/perConn)
		why = fmt.Sprintf("%d open files (ulimit -n)", nofile)
		if simulated {
			why += ", two per connection with the in-process simulator"
		}
	}
	if ports := ephemeralPorts(); ports > 0 && (limit == 0 || ports-FDReserve < limit) {
		limit = max(1, ports-FDReserve)
		why = fmt.Sprintf("%d ephemeral ports", ports)
	}
	return limit, why
}
