package telemetry

import (
	"fmt"
	"net/url"
	"os"
	"strings"
)

// The standard variables of the OTLP exporter
// (https://opentelemetry.io/docs/specs/otel/protocol/exporter/): the SDK reads them itself
// (OTEL_EXPORTER_OTLP_HEADERS too, so a receiver's credentials never pass through argv).
const (
	envEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)

// tracesPath is OTLP/HTTP's path for traces, added to a base URL.
const tracesPath = "/v1/traces"

// Enabled reports whether spans are to be exported: an endpoint given (--otlp-endpoint), or
// one of the standard endpoint variables set.
func Enabled(endpoint string) bool {
	return endpoint != "" || os.Getenv(envEndpoint) != "" || os.Getenv(envTracesEndpoint) != ""
}

// TracesURL is the URL spans go to for --otlp-endpoint's value, read as
// OTEL_EXPORTER_OTLP_ENDPOINT is: a base URL (http://HOST:4318) gets /v1/traces added, a URL
// whose path already ends with it is taken as it is.
func TracesURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", fmt.Errorf("OTLP endpoint %q: %w", endpoint, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("OTLP endpoint %q: want an http:// or https:// URL with a host (OTLP/HTTP, e.g. http://127.0.0.1:4318)", endpoint)
	}
	if u.User != nil {
		return "", fmt.Errorf("OTLP endpoint %q: credentials go in OTEL_EXPORTER_OTLP_HEADERS, not the URL", u.Redacted())
	}
	if !strings.HasSuffix(u.Path, tracesPath) {
		u.Path = strings.TrimSuffix(u.Path, "/") + tracesPath
	}
	return u.String(), nil
}
