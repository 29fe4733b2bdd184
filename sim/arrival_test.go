package sim

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestArrivalLogTimes: each completion request on a kept-alive connection gets one line with
// its id, the handler's clock and, on Linux, the kernel's receive time of its bytes, which
// lies between the client's clock just before the write and the handler's: also the one sent
// after the connection sat idle for 30 ms, so no stamp is an earlier read's.
func TestArrivalLogTimes(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ZeroCost = true
	// Read after stop: the log is written under its own lock and flushed by stop, on this
	// goroutine, so a plain buffer needs no other.
	var log bytes.Buffer
	url, stop, err := ListenLogging(context.Background(), "127.0.0.1:0", cfg, &log)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReader(c)
	body := `{"model":"m","prompt":"hello there","max_tokens":2}`
	before := map[string]int64{}
	for i := range 5 {
		id := fmt.Sprintf("req-%d", i)
		if i == 3 {
			time.Sleep(30 * time.Millisecond)
		}
		tp := "" // every other request carries a traceparent, which the log's last field holds
		if i%2 == 1 {
			tp = fmt.Sprintf("Traceparent: 00-%032x-%016x-01\r\n", i, i)
		}
		req := fmt.Sprintf("POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Request-Id: %s\r\n%sContent-Length: %d\r\n\r\n%s", id, tp, len(body), body)
		before[id] = time.Now().UnixNano()
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		readResponse(t, br)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5:\n%s", len(lines), log.String())
	}
	for _, line := range lines {
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("line %q: want 4 tab-separated fields", line)
		}
		var i int
		fmt.Sscanf(f[1], "req-%d", &i)
		if want := fmt.Sprintf("00-%032x-%016x-01", i, i); (i%2 == 1 && f[3] != want) || (i%2 == 0 && f[3] != "-") {
			t.Errorf("line %q: traceparent field %q", line, f[3])
		}
		handler, err1 := strconv.ParseInt(f[0], 10, 64)
		rx, err2 := strconv.ParseInt(f[2], 10, 64)
		sent, ok := before[f[1]]
		if err1 != nil || err2 != nil || !ok {
			t.Fatalf("line %q", line)
		}
		if runtime.GOOS != "linux" {
			if rx != 0 {
				t.Errorf("%s: socket time %d where none is read", f[1], rx)
			}
			continue
		}
		if rx == 0 && f[1] < "req-3" {
			// The kernel turns receive timestamping on by deferred work at the first socket
			// that asks (net_enable_timestamp), so on a machine where nothing had asked
			// before, the first segments after Listen may arrive unstamped: unknown, 0.
			// The requests after the pause must be stamped.
			t.Logf("%s: not stamped (timestamping still being enabled)", f[1])
			continue
		}
		if !(sent <= rx && rx <= handler) {
			t.Errorf("%s: client wrote at %d, socket %d (%+d ns), handler %d (%+d ns): want write <= socket <= handler",
				f[1], sent, rx, rx-sent, handler, handler-sent)
		}
		t.Logf("%s: socket %+.1f µs after the write, handler %+.1f µs", f[1], float64(rx-sent)/1e3, float64(handler-sent)/1e3)
	}
}

// readResponse reads one HTTP/1.1 response of the simulator (Content-Length or chunked).
func readResponse(t *testing.T, br *bufio.Reader) {
	t.Helper()
	length, chunked := -1, false
	status, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200") {
		t.Fatalf("status %q: %v", status, err)
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		k, v, _ := strings.Cut(line, ":")
		switch strings.ToLower(k) {
		case "content-length":
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		case "transfer-encoding":
			chunked = strings.Contains(v, "chunked")
		}
	}
	if !chunked {
		if _, err := io.CopyN(io.Discard, br, int64(length)); err != nil {
			t.Fatal(err)
		}
		return
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(line), 16, 64)
		if err != nil {
			t.Fatalf("chunk size %q", line)
		}
		if _, err := io.CopyN(io.Discard, br, n+2); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
	}
}

// TestArrivalLogAPIs: requests to every served API are logged, and nothing else is.
func TestArrivalLogAPIs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ZeroCost = true
	var log bytes.Buffer
	url, stop, err := ListenLogging(context.Background(), "127.0.0.1:0", cfg, &log)
	if err != nil {
		t.Fatal(err)
	}
	for path, body := range apiBodies(false) {
		if o := send(t, t.Context(), url, path, "id"+path, body); o.status != 200 {
			t.Fatalf("%s: status %d %s", path, o.status, o.body)
		}
	}
	send(t, t.Context(), url, "/v1/chat/completions", "id/chat", map[string]any{"messages": []map[string]string{{"role": "user", "content": "x"}}})
	if resp, err := http.Get(url + "/health"); err == nil {
		resp.Body.Close()
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(log.String()), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 4 {
			ids = append(ids, f[1])
		}
	}
	slices.Sort(ids)
	if want := []string{"id/chat", "id/v1/embeddings", "id/v1/messages", "id/v1/responses"}; !slices.Equal(ids, want) {
		t.Errorf("logged %v, want %v", ids, want)
	}
}
