// Command arrival measures send timing from the server's side: Poisson schedules replayed by
// `replay run` against `replay sim --zero-cost --arrival-log` in its own process, each
// request's arrival on the server's clock against the instant the schedule gave it, beside
// replay's own lateness figure, and the same schedule sent by vegeta (its library, with a
// pacer that follows the schedule: vegeta's command line paces only constant, linear or sine
// rates) as the reference, in one invocation. It also finds both on-time ceilings on a grid
// of rates, the client CPU per streamed chunk at fixed concurrency, and the default run's
// lateness. Run it on a quiet machine only (scripts/bench-arrival.sh records uptime).
//
// It owns the benchmark only: it must not be imported, and nothing of replay depends on it
// (vegeta stays out of replay's module).
package main
