package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llm-replay/replay/media"
)

// mediaserver.go is --media-listen: replay serves the stand-ins of images logged as URLs, so
// the engine fetches each as it fetched the original (its fetch is in its time to first
// token, as in production). A stand-in is built again from its URL path alone
// (media.ParseStandInPath), so nothing is kept per image but a small cache of recent ones; the
// same logged image is the same URL and the same bytes every time.

// mediaServer serves stand-in images until stopped.
type mediaServer struct {
	url    string // http://HOST:PORT, as engines are to fetch it
	srv    *http.Server
	served atomic.Int64
	mu     sync.Mutex
	recent map[string]media.StandIn // by path; emptied when it passes mediaServerCache
	bytes  int
}

// mediaServerCache bounds the stand-ins kept built for the next fetch.
const mediaServerCache = 64 << 20

// startMediaServer listens on addr (HOST:PORT; an empty or unspecified host listens on every
// interface and is fetched at this machine's name, or at 127.0.0.1 by the built-in simulator,
// local, which fetches from loopback only).
func startMediaServer(addr string, local bool, stderr io.Writer) (*mediaServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--media-listen %s: %w", addr, err)
	}
	host, _, _ := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if host, err = os.Hostname(); err != nil || local {
			host = "127.0.0.1"
		}
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	s := &mediaServer{url: "http://" + net.JoinHostPort(host, port), recent: map[string]media.StandIn{}}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(stderr, "replay: --media-listen %s: %v\n", addr, err)
		}
	}()
	return s, nil
}

func (s *mediaServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "GET only", http.StatusMethodNotAllowed)
		return
	}
	img, err := s.build(r.URL.Path)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	s.served.Add(1)
	w.Header().Set("Content-Type", img.MIME)
	w.Header().Set("Content-Length", strconv.Itoa(len(img.Data)))
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable") // a path is its content
	if r.Method == http.MethodGet {
		_, _ = w.Write(img.Data)
	}
}

// build is the stand-in a path names, from the cache or built.
func (s *mediaServer) build(path string) (media.StandIn, error) {
	s.mu.Lock()
	img, ok := s.recent[path]
	s.mu.Unlock()
	if ok {
		return img, nil
	}
	key, w, h, mime, err := media.ParseStandInPath(path)
	if err != nil {
		return media.StandIn{}, err
	}
	if img, err = media.Build(key, w, h, mime); err != nil {
		return media.StandIn{}, err
	}
	s.mu.Lock()
	if _, in := s.recent[path]; !in { // two fetches of one path may build it at once
		if s.bytes+len(img.Data) > mediaServerCache {
			clear(s.recent)
			s.bytes = 0
		}
		s.recent[path], s.bytes = img, s.bytes+len(img.Data)
	}
	s.mu.Unlock()
	return img, nil
}

// stop closes the server, saying how many images it served.
func (s *mediaServer) stop(stderr io.Writer) {
	if s == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
	fmt.Fprintf(stderr, "replay: --media-listen: served %d image fetches from %s\n", s.served.Load(), s.url)
}
