package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// Listen starts a simulator for cfg on addr (e.g. "127.0.0.1:0") and returns its base URL
// (http://host:port, without /v1). stop shuts it down; it is also called when ctx is done, and
// calling it again is harmless.
func Listen(ctx context.Context, addr string, cfg Config) (url string, stop func() error, err error) {
	return ListenLogging(ctx, addr, cfg, nil)
}

// ListenLogging is Listen that also writes every API request's arrival (chat, completions,
// responses, messages, embeddings) to arrivals when it is not nil (replay sim --arrival-log):
// "<unix ns>\t<X-Request-Id>\t<socket unix ns>\t<traceparent>" a line (arrivalLog), flushed when the server
// stops.
func ListenLogging(ctx context.Context, addr string, cfg Config, arrivals io.Writer) (url string, stop func() error, err error) {
	s := New(cfg)
	if err := s.Start(ctx); err != nil {
		return "", nil, err
	}
	listen := func(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }
	if arrivals != nil {
		listen = stampedListen
	}
	ln, err := listen(addr)
	if err != nil {
		s.Close()
		return "", nil, fmt.Errorf("sim: listening on %s: %w", addr, err)
	}
	var handler http.Handler = s
	var alog *arrivalLog
	if arrivals != nil {
		alog = newArrivalLog(arrivals)
		handler = alog.wrap(s)
		ln = stampConns(ln)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ConnContext: withConn}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	var once sync.Once
	var stopErr error
	stopped := make(chan struct{})
	stop = func() error {
		once.Do(func() {
			defer close(stopped)
			// Stopping the engine ends the streams still in it; then let handlers finish.
			s.Close()
			sctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil {
				srv.Close()
			}
			if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
				stopErr = fmt.Errorf("sim: serving: %w", err)
			}
			if alog != nil {
				if err := alog.flush(); err != nil && stopErr == nil {
					stopErr = fmt.Errorf("sim: arrival log: %w", err)
				}
			}
		})
		return stopErr
	}
	go func() {
		select {
		case <-ctx.Done():
			stop()
		case <-stopped:
		}
	}()
	return "http://" + ln.Addr().String(), stop, nil
}
