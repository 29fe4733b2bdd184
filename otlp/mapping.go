package otlp

import (
	"fmt"
	"strings"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
)

// The attributes a record's fields are read from, in order of preference: the GenAI semantic
// conventions' names (https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-spans/), then
// the older ones vLLM's spans still carry (vllm/tracing.py's SpanAttributes at vLLM commit
// 03b8a674ec7e654ab285df6f013a53a24381f941: gen_ai.usage.prompt_tokens and
// completion_tokens, gen_ai.response.model). The reasoning part of the output is
// gen_ai.usage.reasoning.output_tokens ("The number of output tokens used for reasoning ...
// SHOULD be included in gen_ai.usage.output_tokens"; development stability, defined in
// open-telemetry/semantic-conventions@c1212d96fcbf7f7e8b6279a971f2a36282a5a240:
// model/gen-ai/registry.yaml, #3383, since moved with the GenAI conventions to
// open-telemetry/semantic-conventions-genai). --map FIELD=ATTRIBUTE puts one attribute first.
var defaultKeys = map[string][]string{
	"prompt_tokens":    {"gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"},
	"output_tokens":    {"gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"},
	"reasoning_tokens": {"gen_ai.usage.reasoning.output_tokens"},
	"model":            {"gen_ai.request.model", "gen_ai.response.model"},
	"session_id":       {"gen_ai.conversation.id", "session.id"},
}

// The request options read when present (the conventions' names; stream is no convention's,
// read under the name its gen_ai.request.* siblings suggest).
const (
	keyOperation     = "gen_ai.operation.name"
	keyMaxTokens     = "gen_ai.request.max_tokens"
	keyTemperature   = "gen_ai.request.temperature"
	keyTopP          = "gen_ai.request.top_p"
	keyStream        = "gen_ai.request.stream"
	keyFinishReasons = "gen_ai.response.finish_reasons"
	genAIPrefix      = "gen_ai."
)

// MapFields are the record fields --map may point at another attribute.
var MapFields = []string{"prompt_tokens", "output_tokens", "reasoning_tokens", "model", "session_id"}

// keys is each field's attribute names under the user's --map.
type keys map[string][]string

// keysFor is keys under m (ingest.ParseMap's form: a key holding dots may come in brackets,
// ["gen_ai.usage.input_tokens"]); a field of m that spans cannot map is an error.
func keysFor(m map[string]string) (keys, error) {
	k := keys{}
	for f, names := range defaultKeys {
		k[f] = names
	}
	for f, v := range m {
		if _, ok := k[f]; !ok {
			return nil, fmt.Errorf("--map %s: the otlp format maps only %s to span attributes", f, strings.Join(MapFields, ", "))
		}
		if strings.HasPrefix(v, `["`) && strings.HasSuffix(v, `"]`) {
			v = v[2 : len(v)-2]
		}
		k[f] = append([]string{v}, k[f]...)
	}
	return k, nil
}

// apiOf is the API a GenAI operation went to (trace.APIs' names), "" when it names none of them.
func apiOf(op string) string {
	switch op {
	case "chat", "generate_content":
		return "chat"
	case "text_completion":
		return "completions"
	case "embeddings":
		return "embeddings"
	}
	return ""
}

// attrs is a span's attributes by key (the last wins, as the SDKs keep them).
type attrs map[string]*commonpb.AnyValue

func attrsOf(kvs []*commonpb.KeyValue) (a attrs, genAI bool) {
	a = make(attrs, len(kvs))
	for _, kv := range kvs {
		a[kv.Key] = kv.Value
		genAI = genAI || strings.HasPrefix(kv.Key, genAIPrefix)
	}
	return a, genAI
}

// first is the value of the first of names the span carries, and which name that was.
func (a attrs) first(names []string) (*commonpb.AnyValue, string) {
	for _, n := range names {
		if v, ok := a[n]; ok && v != nil {
			return v, n
		}
	}
	return nil, ""
}
