package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

type config struct {
	replay, tokenizer, work string
	rates, ceiling          []float64
	delays                  []time.Duration
	seconds, ceilSeconds    float64
	absorb                  []int
	absorbRequests          int
	parts                   map[string]bool
}

func main() {
	var c config
	rates := flag.String("rates", "1000,2000,5000,10000", "Poisson rates (req/s) of the lateness table")
	delays := flag.String("delays", "0,5ms", "the simulator's time between streamed chunks, one table per value")
	ceiling := flag.String("ceiling", "10000,12500,15000,20000", "rates of the on-time ceiling grid (token delay 0)")
	absorb := flag.String("absorb", "64,256", "concurrency levels of the chunk-absorption runs (256-token streams)")
	flag.StringVar(&c.replay, "replay", "bin/replay", "the replay binary")
	flag.StringVar(&c.tokenizer, "tokenizer", "samples/tokenizer/mistral", "tokenizer replay builds prompts with")
	flag.Float64Var(&c.seconds, "seconds", 5, "length of each lateness run")
	flag.Float64Var(&c.ceilSeconds, "ceiling-seconds", 3, "length of each ceiling run")
	flag.IntVar(&c.absorbRequests, "absorb-requests", 2000, "requests per absorption run")
	keep := flag.String("keep", "", "keep every run's files (traces, arrival logs, replay's output) in this folder instead of a temporary one")
	parts := flag.String("parts", "lateness,ceiling,absorb,default", "which parts to run: lateness (the table per token delay), ceiling, absorb, default (the README's default run)")
	flag.Parse()
	var err error
	if c.rates, err = floats(*rates); err == nil {
		if c.ceiling, err = floats(*ceiling); err == nil {
			if c.delays, err = durations(*delays); err == nil {
				c.absorb, err = ints(*absorb)
			}
		}
	}
	if err != nil {
		fail(err)
	}
	c.parts = map[string]bool{}
	for _, p := range strings.Split(*parts, ",") {
		c.parts[strings.TrimSpace(p)] = true
	}
	if *keep != "" {
		c.work = *keep
		err = os.MkdirAll(c.work, 0o755)
	} else if c.work, err = os.MkdirTemp("", "arrival-bench-"); err == nil {
		defer os.RemoveAll(c.work)
	}
	if err != nil {
		fail(err)
	}
	if err := run(c); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "arrival:", err)
	os.Exit(1)
}

func run(c config) error {
	if c.parts["lateness"] {
		if err := latenessTables(c); err != nil {
			return err
		}
	}
	if c.parts["ceiling"] {
		if err := ceilings(c); err != nil {
			return err
		}
	}
	if c.parts["absorb"] {
		if err := absorption(c); err != nil {
			return err
		}
	}
	if c.parts["default"] {
		return defaultRun(c)
	}
	return nil
}

// latenessTables is the server-clock lateness table for each token delay.
func latenessTables(c config) error {
	for _, d := range c.delays {
		fmt.Printf("\n## Server-clock lateness, Poisson schedules, 16-token streams, token delay %v, %g s each\n\n", d, c.seconds)
		fmt.Println("Server: when the request's bytes reached the server's kernel (socket receive timestamp); handler: when the server's handler started, which adds the server's own wake-up.")
		fmt.Println()
		fmt.Println("| rate | sender | sent/s | server p50 | server p99 | server max | p99 - min | first request | first second p99 | handler p99 | replay's own p99 | own - server p99 | replay's arrival verdict |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
		for _, rate := range c.rates {
			sched := poisson(rate, c.seconds, uint64(rate))
			rp, err := replaySend(c, sched, d, 16, fmt.Sprintf("r%g-%v", rate, d))
			if err != nil {
				return err
			}
			vg, err := vegetaSend(c, sched, d, 16, fmt.Sprintf("v%g-%v", rate, d))
			if err != nil {
				return err
			}
			fl, err := floorSend(c, sched, d, 16, fmt.Sprintf("f%g-%v", rate, d))
			if err != nil {
				return err
			}
			printRow(rate, "replay", rp)
			printRow(rate, "vegeta", vg)
			printRow(rate, "floor", fl)
		}
	}
	return nil
}

// ceilings finds both senders' highest rates kept on the grid.
func ceilings(c config) error {
	fmt.Printf("\n## Ceilings (token delay 0, %g s each): sustained = every request answered, arrivals' rate within 1%% of the schedule's, server p99 <= 10 ms; on time = the same with p99 <= 1 ms\n\n", c.ceilSeconds)
	fmt.Println("| offered | schedule's rate | replay sent/s | replay server p99 | replay | replay's own arrival verdict | vegeta sent/s | vegeta server p99 | vegeta |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	var susR, susV, onR, onV float64
	for _, rate := range c.ceiling {
		sched := poisson(rate, c.ceilSeconds, uint64(rate)+7)
		rp, err := replaySend(c, sched, 0, 16, fmt.Sprintf("cr%g", rate))
		if err != nil {
			return err
		}
		vg, err := vegetaSend(c, sched, 0, 16, fmt.Sprintf("cv%g", rate))
		if err != nil {
			return err
		}
		if rp.sustained() {
			susR = rate
		}
		if rp.onTime() {
			onR = rate
		}
		if vg.sustained() {
			susV = rate
		}
		if vg.onTime() {
			onV = rate
		}
		fmt.Printf("| %g | %.0f | %.0f | %s | %s | %s | %.0f | %s | %s |\n", rate, rp.schedRate, rp.sentRate, ms(rp.p(99)), grade(rp), rp.verdict, vg.sentRate, ms(vg.p(99)), grade(vg))
	}
	fmt.Printf("\nhighest rate sustained: replay %g req/s, vegeta %g req/s; on time: replay %g req/s, vegeta %g req/s\n", susR, susV, onR, onV)
	return nil
}

func printRow(rate float64, who string, m *measure) {
	own, diff, verdict := "n/a", "n/a", "n/a"
	if m.own != nil {
		own = ms(m.own.P99)
		diff = fmt.Sprintf("%+.3f ms", m.own.P99-m.p(99))
		verdict = m.verdict
	}
	fmt.Printf("| %g | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", rate, who, m.sentRate,
		ms(m.p(50)), ms(m.p(99)), ms(m.p(100)), ms(m.p(99)-m.p(0)), ms(m.firstReq), ms(m.firstP99), ms(quantile(m.handler, 99)), own, diff, verdict)
}

func grade(m *measure) string {
	switch {
	case m.onTime():
		return "on time"
	case m.sustained():
		return "sustained"
	}
	return fmt.Sprintf("behind (%d of %d answered)", m.answered, m.total)
}

func ms(v float64) string { return fmt.Sprintf("%.3f ms", v) }

// poisson is a seeded Poisson schedule: offsets from the start, sorted.
func poisson(rate, seconds float64, seed uint64) []time.Duration {
	rng := rand.New(rand.NewPCG(seed, 21))
	var out []time.Duration
	var t float64
	for {
		t += rng.ExpFloat64() / rate
		if t >= seconds {
			return out
		}
		out = append(out, time.Duration(t*1e9))
	}
}

// measure is one sender's run of one schedule, from the server's arrival log.
type measure struct {
	// late is the server-clock lateness per request (ms), sorted: when its bytes reached the
	// server's kernel (the socket's receive timestamp), or, where the log has none, when the
	// handler started. handler is the latter's, which adds the server's own wake-up.
	late     []float64
	handler  []float64
	firstP99 float64 // p99 of those scheduled in the first second
	firstReq float64 // the first request's
	sentRate float64 // arrivals per second, first to last
	// schedRate is the schedule's own rate, first to last (a Poisson sample strays from the
	// nominal rate).
	schedRate float64
	answered  int // requests answered in full (vegeta: 200s; replay: ok)
	total     int
	own       *dist  // replay's own lateness figure
	verdict   string // replay's own arrival verdict (summary.json fidelity.arrival)
}

type dist struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
	Max float64 `json:"max"`
}

func (m *measure) p(q float64) float64 { return quantile(m.late, q) }

// quantile is the nearest-rank q-th percentile of sorted x, NaN if x is empty.
func quantile(x []float64, q float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(q/100*float64(len(x)))) - 1
	return x[min(max(i, 0), len(x)-1)]
}

// sustained: every request answered, the arrivals' rate within 1% of the schedule's own and
// the server-clock lateness p99 within replay's default --max-lateness (10 ms); onTime: the
// same with p99 <= 1 ms.
func (m *measure) sustained() bool {
	return m.answered == m.total && m.sentRate >= 0.99*m.schedRate && m.p(99) <= 10
}

func (m *measure) onTime() bool { return m.sustained() && m.p(99) <= 1 }

// judge joins the arrival log (request id -> server clock) with the schedule, whose offset 0
// is the instant origin.
func judge(logPath string, sched []time.Duration, origin time.Time) (*measure, error) {
	arr, err := readArrivals(logPath)
	if err != nil {
		return nil, err
	}
	m := &measure{total: len(sched)}
	var first []float64
	var lo, hi int64 = math.MaxInt64, math.MinInt64
	for i, at := range sched {
		a, ok := arr[strconv.Itoa(i)]
		if !ok {
			continue
		}
		due := origin.Add(at).UnixNano()
		got := a.handler
		if a.socket > 0 {
			got = a.socket
		}
		l := float64(got-due) / 1e6
		if i == 0 {
			m.firstReq = l
		}
		m.late = append(m.late, l)
		m.handler = append(m.handler, float64(a.handler-due)/1e6)
		if at < time.Second {
			first = append(first, l)
		}
		lo, hi = min(lo, got), max(hi, got)
	}
	slices.Sort(m.late)
	slices.Sort(m.handler)
	slices.Sort(first)
	if len(first) > 0 {
		m.firstP99 = first[max(int(math.Ceil(0.99*float64(len(first))))-1, 0)]
	}
	if span := sched[len(sched)-1] - sched[0]; span > 0 && len(m.late) > 1 {
		m.sentRate = float64(len(m.late)-1) / (float64(hi-lo) / 1e9)
		m.schedRate = float64(len(sched)-1) / span.Seconds()
	}
	return m, nil
}

// arrival is one line of replay sim's --arrival-log: when the handler started and when the
// request's bytes reached the kernel (0 if unknown), Unix ns.
type arrival struct{ handler, socket int64 }

func readArrivals(path string) (map[string]arrival, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]arrival{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Split(sc.Text(), "\t")
		var a arrival
		var err1, err2 error
		if len(fields) == 3 || len(fields) == 4 { // a newer sim adds the traceparent
			a.handler, err1 = strconv.ParseInt(fields[0], 10, 64)
			a.socket, err2 = strconv.ParseInt(fields[2], 10, 64)
		}
		if (len(fields) != 3 && len(fields) != 4) || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s:%d: not '<unix ns>\\t<id>\\t<socket unix ns>': %q", path, n, sc.Text())
		}
		out[fields[1]] = a
	}
	return out, sc.Err()
}

// sim is a `replay sim --zero-cost` process logging arrivals.
type sim struct {
	cmd *exec.Cmd
	url string
}

func startSim(c config, arrivals string, delay time.Duration) (*sim, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(c.replay, "sim", "--listen", addr, "--zero-cost", "--arrival-log", arrivals,
		"--token-delay", delay.String(), "--max-waiting", "1000000")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &sim{cmd: cmd, url: "http://" + addr}
	for i := 0; ; i++ {
		resp, err := http.Get(s.url + "/health")
		if err == nil {
			resp.Body.Close()
			return s, nil
		}
		if i > 200 {
			s.stop()
			return nil, fmt.Errorf("replay sim on %s did not come up: %w", addr, err)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// stop ends the simulator with SIGINT, which flushes its arrival log.
func (s *sim) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// writeTrace writes sched as a Mooncake-style JSONL trace (fractional milliseconds keep
// nanoseconds), each request with prompt input and output tokens.
func writeTrace(path string, sched []time.Duration, input, output int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, at := range sched {
		fmt.Fprintf(w, "{\"timestamp\": %.6f, \"input_length\": %d, \"output_length\": %d, \"hash_ids\": [1]}\n", float64(at)/1e6, input, output)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// replaySend replays sched with `replay run --start-at` and judges it from the server's log.
func replaySend(c config, sched []time.Duration, delay time.Duration, output int, name string) (*measure, error) {
	dir := filepath.Join(c.work, name)
	trace := filepath.Join(c.work, name+".jsonl")
	if err := writeTrace(trace, sched, 64, output); err != nil {
		return nil, err
	}
	arrivals := filepath.Join(c.work, name+".arrivals")
	s, err := startSim(c, arrivals, delay)
	if err != nil {
		return nil, err
	}
	// Time to build the prompts before the shared instant: about 1 s per 50,000 here.
	start := time.Now().Add(3*time.Second + time.Duration(len(sched))*40*time.Microsecond)
	cmd := exec.Command(c.replay, "run", "--endpoint", s.url+"/v1", "--model", "replay-sim",
		"--tokenizer", c.tokenizer, "--trace", trace, "--out", dir, "--metrics-url", "none",
		"--max-lateness", "0", "--progress", "plain", "--checks", "none", "--timeout", "60s",
		"--start-at", fmt.Sprintf("%d.%09d", start.Unix(), start.Nanosecond()))
	out, runErr := cmd.CombinedOutput()
	s.stop()
	// Exit 3 (too many failed) and 5 (client-bound) are results: the summary says what happened.
	if ee, ok := runErr.(*exec.ExitError); runErr != nil && !(ok && (ee.ExitCode() == 3 || ee.ExitCode() == 5)) {
		return nil, fmt.Errorf("replay run (%s): %v\n%s", name, runErr, out)
	}
	// replay's schedule starts at its first record: that record is due at --start-at.
	m, err := judge(arrivals, sched, start.Add(-sched[0]))
	if err != nil {
		return nil, err
	}
	var sum struct {
		Lateness dist `json:"lateness_ms"`
		Requests struct {
			OK int `json:"ok"`
		} `json:"requests"`
		Fidelity struct {
			Arrival struct {
				Verdict string   `json:"verdict"`
				Bursts  *float64 `json:"bursts_kept_pct"`
			} `json:"arrival"`
		} `json:"fidelity"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: summary.json: %w", name, err)
	}
	m.own, m.answered, m.verdict = &sum.Lateness, sum.Requests.OK, sum.Fidelity.Arrival.Verdict
	if b := sum.Fidelity.Arrival.Bursts; b != nil {
		m.verdict += fmt.Sprintf(" (bursts kept %.1f%%)", *b)
	}
	return m, nil
}

// schedulePacer makes vegeta send hit i at start+at[i] (vegeta sleeps for the wait it is
// given, then sends).
type schedulePacer struct {
	start time.Time
	at    []time.Duration
}

func (p schedulePacer) Pace(_ time.Duration, hits uint64) (time.Duration, bool) {
	if hits >= uint64(len(p.at)) {
		return 0, true
	}
	return max(time.Until(p.start.Add(p.at[hits])), 0), false
}

func (p schedulePacer) Rate(time.Duration) float64 {
	if len(p.at) < 2 {
		return 0
	}
	return float64(len(p.at)-1) / (p.at[len(p.at)-1] - p.at[0]).Seconds()
}

// vegetaSend sends sched with vegeta's attacker: the same body shape, X-Request-Id numbered
// in the order its targeter is called, every response read to its end.
func vegetaSend(c config, sched []time.Duration, delay time.Duration, output int, name string) (*measure, error) {
	arrivals := filepath.Join(c.work, name+".arrivals")
	s, err := startSim(c, arrivals, delay)
	if err != nil {
		return nil, err
	}
	body := []byte(fmt.Sprintf(`{"model":"replay-sim","prompt":%q,"max_tokens":%d,"stream":true,"stream_options":{"include_usage":true}}`,
		strings.Repeat("lorem ipsum ", 21), output))
	var next atomic.Int64
	url := s.url + "/v1/completions"
	targeter := func(t *vegeta.Target) error {
		t.Method, t.URL, t.Body = http.MethodPost, url, body
		t.Header = http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {strconv.FormatInt(next.Add(1)-1, 10)}}
		return nil
	}
	atk := vegeta.NewAttacker(vegeta.KeepAlive(true), vegeta.Connections(20000), vegeta.MaxConnections(0),
		vegeta.Workers(64), vegeta.MaxWorkers(20000), vegeta.Timeout(60*time.Second), vegeta.MaxBody(-1))
	start := time.Now().Add(500 * time.Millisecond)
	ok := 0
	for r := range atk.Attack(targeter, schedulePacer{start: start, at: sched}, 0, name) {
		if r.Code == http.StatusOK && r.Error == "" {
			ok++
		}
	}
	return s.judged(arrivals, sched, start, ok)
}

// judged stops the simulator (flushing its arrival log) and judges a sender's run of sched
// from start, ok of its requests answered in full.
func (s *sim) judged(arrivals string, sched []time.Duration, start time.Time, ok int) (*measure, error) {
	s.stop()
	m, err := judge(arrivals, sched, start)
	if err != nil {
		return nil, err
	}
	m.answered = ok
	return m, nil
}

// absorption is the client CPU per streamed chunk at fixed concurrency: replay's CPU time on
// 256-token streams less its CPU time on 1-token streams of the same requests (everything but
// the chunks), over the extra chunks; the simulator writes each answer at once.
func absorption(c config) error {
	fmt.Printf("\n## Client CPU per streamed chunk (closed loop, %d requests, zero-cost simulator)\n\n", c.absorbRequests)
	fmt.Println("| concurrency | CPU, 256-token streams | CPU, 1-token streams | chunks | CPU per chunk |")
	fmt.Println("|---|---|---|---|---|")
	sched := make([]time.Duration, c.absorbRequests)
	for _, conc := range c.absorb {
		long, err := cpuOf(c, sched, conc, 256, fmt.Sprintf("a%d-256", conc))
		if err != nil {
			return err
		}
		short, err := cpuOf(c, sched, conc, 1, fmt.Sprintf("a%d-1", conc))
		if err != nil {
			return err
		}
		chunks := float64(c.absorbRequests) * 255
		fmt.Printf("| %d | %v | %v | %.0f | %.3f µs |\n", conc, long.Round(time.Millisecond), short.Round(time.Millisecond), chunks,
			float64(long-short)/chunks/1e3)
	}
	return nil
}

// cpuOf runs replay closed loop at conc over sched and returns its CPU time (user + system).
func cpuOf(c config, sched []time.Duration, conc, output int, name string) (time.Duration, error) {
	trace := filepath.Join(c.work, name+".jsonl")
	if err := writeTrace(trace, sched, 64, output); err != nil {
		return 0, err
	}
	s, err := startSim(c, filepath.Join(c.work, name+".arrivals"), 0)
	if err != nil {
		return 0, err
	}
	defer s.stop()
	cmd := exec.Command(c.replay, "run", "--endpoint", s.url+"/v1", "--model", "replay-sim",
		"--tokenizer", c.tokenizer, "--trace", trace, "--out", filepath.Join(c.work, name), "--metrics-url", "none",
		"--max-lateness", "0", "--progress", "plain", "--checks", "none", "--max-concurrency", strconv.Itoa(conc))
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("replay run (%s): %w", name, err)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), nil
}

// defaultRun times the README's main command and reads its lateness.
func defaultRun(c config) error {
	dir := filepath.Join(c.work, "default")
	cmd := exec.Command(c.replay, "run", "--speed", "4", "--out", dir, "--progress", "plain")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("replay run --speed 4: %w", err)
	}
	var sum struct {
		Lateness dist `json:"lateness_ms"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err == nil {
		err = json.Unmarshal(b, &sum)
	}
	if err != nil {
		return fmt.Errorf("default run: summary.json: %w", err)
	}
	fmt.Printf("\n## Default run (replay run --speed 4): lateness p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", sum.Lateness.P50, sum.Lateness.P99, sum.Lateness.Max)
	return nil
}

func floats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("%q: want positive numbers", s)
		}
		out = append(out, v)
	}
	return out, nil
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("%q: want positive integers", s)
		}
		out = append(out, v)
	}
	return out, nil
}

func durations(s string) ([]time.Duration, error) {
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "0" {
			out = append(out, 0)
			continue
		}
		d, err := time.ParseDuration(f)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("%q: want durations like 0,5ms", s)
		}
		out = append(out, d)
	}
	return out, nil
}
