package client

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Config describes the endpoint and how to talk to it.
type Config struct {
	// BaseURL is the API root, e.g. http://127.0.0.1:8000/v1; the API's path
	// ("/chat/completions", "/completions", "/responses", "/messages", "/embeddings") is
	// appended.
	BaseURL string
	// API is the API requests go to unless they name their own (Request.API): one of the API
	// constants.
	API string
	// Model is sent as "model" in every request.
	Model string
	// APIKey is sent as a Bearer token when non-empty, and on messages requests also as
	// x-api-key (Anthropic's header). Read it with APIKeyFromEnv or APIKeyFromFile; it is
	// never logged and never appears in errors.
	APIKey string
	// Timeout bounds one whole request, from send to the end of its stream; 0 means none
	// (the caller's context still applies).
	Timeout time.Duration
	// MaxConns caps connections to the endpoint (and the idle pool). 0 means no cap and an
	// idle pool of 16,384: an open-loop run must not queue hidden inside the transport. With a
	// cap, a request waiting for a connection counts that wait in its latency (SentNS is taken
	// before it).
	MaxConns int
	// ExtraBody holds fields merged into every request body, e.g. {"ignore_eos": true,
	// "min_tokens": 128}. A key the request already has (max_tokens, model, stream_options,
	// an option's, a logged member of Options.Fields) is replaced by the extra value;
	// "stream" cannot be overridden. Requests marked Unforced, and every embeddings request,
	// go without its ForcingKeys; verbatim bodies without any of it.
	ExtraBody map[string]any
	// ThinkingBudgetField, when set, is the request field the engine bounds a request's
	// thinking by (vLLM's thinking_token_budget): a forced request with a ThinkingBudget
	// carries it, so the logged split of thinking and answer is asked for too. Unforced
	// requests, and a body whose logged fields already hold it, go without.
	ThinkingBudgetField string
	// PriorityField, when set, is the request field the engine schedules by (vLLM's
	// priority): a request with a Priority gets it, unless its logged body holds the field.
	PriorityField string
	// AdapterField is how a request's LoRA adapter (Request.Adapter) is sent: "" as the
	// adapter's name in "model" (vLLM's way, and every engine's not named here); "lora_path"
	// (SGLang) or "lora" (llama.cpp) with the base model (Request.Model) as "model" and the
	// adapter in that field, lora as [{"id": AdapterIDs[name], "scale": 1.0}].
	AdapterField string
	// AdapterIDs are llama-server's adapter ids by the names requests give (AdapterField
	// "lora"); a request whose adapter has none fails before it is sent. AdapterListed are
	// all the ids it lists: each request's lora names every one, at scale 0 but its own
	// adapter's (1.0), so a request without an adapter runs on the base alone whatever the
	// server's global scales (llama-server applies those to a request whose lora is absent or
	// empty: measured on build b11669, e2e/llamacpp/slices/96-lora.sh).
	AdapterIDs    map[string]int
	AdapterListed []int
	// OmitUsage stops the client asking for stream_options.include_usage. Leave it false
	// (the default) unless the server rejects the option: usage is how served token counts
	// are checked.
	OmitUsage bool
	// StallTimeout ends a request that receives no byte for this long: from the send until
	// the response headers (including any wait for a connection under MaxConns), and between
	// reads of the body. 0 means none. Its class is timeout, with a message that says it was a
	// stall, unlike Timeout's.
	StallTimeout time.Duration
	// CAFile is a PEM file of CA certificates (a private CA) trusted for https endpoints in
	// addition to the system's roots.
	CAFile string
	// Insecure skips TLS certificate verification. Certificates are verified unless this is
	// set; set it only when asked for by name (a self-signed test server).
	Insecure bool
}

// Client sends requests for one endpoint and model, to the API of each request (Config.API by
// default). It is safe for concurrent use by thousands of goroutines.
type Client struct {
	api     apiKind
	model   string
	auth    string // "Bearer <key>", or "" when there is no key
	key     string // the key itself, redacted from error messages
	timeout time.Duration
	stall   time.Duration
	usage   *openai.StreamOptions
	// oa holds the go-openai configuration (base URL and HTTP client); requests are sent
	// through oa.HTTPClient.
	oa openai.ClientConfig
	// extra is ExtraBody as sent; unforced the same without its ForcingKeys, for requests
	// marked Unforced.
	extra, unforced extraBody
	// priorityField is Config.PriorityField.
	priorityField string
	// adapterField and adapterIDs are Config.AdapterField and Config.AdapterIDs.
	adapterField  string
	adapterIDs    map[string]int
	adapterListed []int
	// thinkingField is Config.ThinkingBudgetField.
	thinkingField string
	// urls are the endpoint's API paths, by kind.
	urls [nKinds]string
	// maxOverride is, by kind, the output cap ExtraBody sends instead of the request's (see
	// sentMaxTokens): -1 when ExtraBody leaves it alone, -2 when its value is not an integer.
	maxOverride [nKinds]int
	// direct, when set, sends requests itself on the plain transport's connections
	// (direct.go), as long as oa.HTTPClient is still own, the HTTP client New made (a test or
	// caller that puts another in its place is sent through it).
	direct *direct
	own    *http.Client
}

// New checks cfg and builds a client with a connection pool sized for thousands of streams.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q: want http(s)://host[:port]/path", cfg.BaseURL)
	}
	api, ok := apiKindOf(cfg.API)
	if !ok {
		return nil, unknownAPI("API", cfg.API)
	}
	c := &Client{
		api:     api,
		model:   cfg.Model,
		timeout: cfg.Timeout,
		stall:   cfg.StallTimeout,
	}
	base := strings.TrimRight(cfg.BaseURL, "/")
	for i, p := range apiPaths {
		c.urls[i] = base + p
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("client: model is empty")
	}
	if cfg.Timeout < 0 {
		return nil, fmt.Errorf("client: timeout %v is negative", cfg.Timeout)
	}
	if cfg.StallTimeout < 0 {
		return nil, fmt.Errorf("client: stall timeout %v is negative", cfg.StallTimeout)
	}
	if cfg.MaxConns < 0 {
		return nil, fmt.Errorf("client: max conns %d is negative", cfg.MaxConns)
	}
	if strings.ContainsAny(cfg.APIKey, "\r\n") {
		return nil, fmt.Errorf("client: API key contains a line break")
	}
	if cfg.APIKey != "" {
		c.auth, c.key = "Bearer "+cfg.APIKey, cfg.APIKey
	}
	if !cfg.OmitUsage {
		c.usage = &openai.StreamOptions{IncludeUsage: true}
	}
	c.thinkingField = cfg.ThinkingBudgetField
	c.priorityField = cfg.PriorityField
	if err := c.setAdapters(cfg.AdapterField, cfg.AdapterIDs, cfg.AdapterListed); err != nil {
		return nil, err
	}
	if err := c.setExtra(cfg.ExtraBody); err != nil {
		return nil, err
	}
	tlsCfg, err := tlsConfig(cfg)
	if err != nil {
		return nil, err
	}
	c.oa = openai.DefaultConfig(cfg.APIKey)
	c.oa.BaseURL = base
	tr := newTransport(cfg.MaxConns, tlsCfg)
	c.own = &http.Client{Transport: tr}
	c.oa.HTTPClient = c.own
	if pt, ok := tr.(*plainTransport); ok {
		c.direct = newDirect(pt, cfg, u, &c.urls, c.auth)
	}
	return c, nil
}

// OpenAIConfig returns the go-openai configuration this client uses (base URL, key, pooled
// HTTP client), for callers that want go-openai's own calls against the same endpoint.
func (c *Client) OpenAIConfig() openai.ClientConfig { return c.oa }

// overrideMax is the output cap ExtraBody sends on api: on chat and completions
// max_completion_tokens when present (servers that read both take it over max_tokens), else
// max_tokens; the Responses API's max_output_tokens; the Messages API's max_tokens; -1 when
// none is there (and always on embeddings, which have no output), -2 when the value is not a
// non-negative integer (then the cap is unknown).
func overrideMax(extra map[string]json.RawMessage, api apiKind) int {
	var keys []string
	switch api {
	case kindChat, kindCompletions:
		keys = []string{"max_completion_tokens", "max_tokens"}
	case kindResponses:
		keys = []string{"max_output_tokens"}
	case kindMessages:
		keys = []string{"max_tokens"}
	}
	var v json.RawMessage
	ok := false
	for _, k := range keys {
		if v, ok = extra[k]; ok {
			break
		}
	}
	if !ok {
		return -1
	}
	n, err := strconv.ParseInt(string(v), 10, 32)
	if err != nil || n < 0 {
		return -2
	}
	return int(n)
}

// sentMaxTokens is the output cap the server is sent on api for a request whose MaxTokens is
// asked: the ExtraBody override when there is one; 0 when none is sent (always on
// embeddings) and -1 when it is unknown, and then no judgement depends on it.
func (c *Client) sentMaxTokens(api apiKind, asked int) int {
	if api == kindEmbeddings {
		return 0
	}
	switch o := c.maxOverride[api]; o {
	case -1:
		return asked
	case -2:
		return -1
	default:
		return o
	}
}

// newTransport pools connections for thousands of concurrent streams. Plain http stays on
// HTTP/1.1 (one stream per connection, as inference servers expect) and goes through
// plainTransport, which writes and reads on the sending goroutine; HTTP/2 is negotiated only
// over TLS, by net/http's transport, which also carries proxied requests. Compression is off:
// SSE arrives as it is produced and gzip would cost CPU.
func newTransport(maxConns int, tlsCfg *tls.Config) http.RoundTripper {
	idle := maxConns
	if idle == 0 {
		idle = 16384
	}
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          idle,
		MaxIdleConnsPerHost:   idle,
		MaxConnsPerHost:       maxConns,
		IdleConnTimeout:       90 * time.Second,
		TLSClientConfig:       tlsCfg,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: 0,
		DisableCompression:    true,
		ReadBufferSize:        8 << 10,
		WriteBufferSize:       16 << 10,
	}
	return newPlainTransport(tr, d.DialContext, maxConns)
}
