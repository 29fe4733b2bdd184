package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Serve serves ms at http://addr/metrics, one page (a paired run's endpoints' series side by
// side, told apart by their endpoint label), and returns the address it listens on (addr may
// say port 0) and a stop function. Stop keeps serving until one scrape has read the final figures
// or linger has passed, whichever comes first (a run that ends between two scrapes would
// otherwise leave its dashboard short of its last requests), then closes the server.
func Serve(ctx context.Context, addr string, linger time.Duration, ms ...*Metrics) (string, func() error, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, fmt.Errorf("--metrics-listen %s: %w", addr, err)
	}
	var (
		mu       sync.Mutex
		stopping bool
		scraped  = make(chan struct{})
	)
	regs := make(prometheus.Gatherers, len(ms))
	for i, m := range ms {
		regs[i] = m.reg
	}
	handler := promhttp.HandlerFor(regs, promhttp.HandlerOpts{EnableOpenMetrics: true})
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		final := stopping
		mu.Unlock()
		handler.ServeHTTP(w, r)
		if final {
			select {
			case <-scraped:
			default:
				close(scraped)
			}
		}
	}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	stop := func() error {
		mu.Lock()
		stopping = true
		mu.Unlock()
		if linger > 0 {
			select {
			case <-scraped:
			case <-time.After(linger):
			case <-ctx.Done():
			}
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		defer cancel()
		err := srv.Shutdown(sctx)
		if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
		return err
	}
	return ln.Addr().String(), stop, nil
}
