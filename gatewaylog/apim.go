package gatewaylog

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/llm-replay/replay/trace"
)

// apimSchema reads Azure API Management's logs of LLM traffic, exported as JSON lines: the
// gateway log and the LLM log, in one file (a Log Analytics export of both tables, or the
// diagnostic setting's records as a storage account or event hub receives them).
//
// The gateway log is the table ApiManagementGatewayLogs (Azure Monitor Logs reference,
// "ApiManagementGatewayLogs") and the resource log category GatewayLogs (API Management docs,
// "Reference: Gateway log schema"; its 2020 version, "Reference: API Management resource log
// schema", gives the properties in camelCase as the diagnostic setting nests them). Read here:
// TimeGenerated (table) or time (resource log, "Common and service-specific schemas for Azure
// resource logs": the top-level common schema's time, correlationId, category, durationMs,
// properties), CorrelationId, Url (the API from its path), ResponseCode, ApimSubscriptionId and
// UserId (the key), RequestBody/BackendRequestBody (the cap and sampling, when body logging
// is on) and BackendResponseBody/ResponseBody (cached tokens from the usage in it).
//
// The LLM log is the table ApiManagementGatewayLlmLog (Azure Monitor Logs reference,
// "ApiManagementGatewayLlmLog") and the category GatewayLlmLogs ("Log token usage, prompts, and
// completions for LLM APIs"): CorrelationId ("Unique id corresponding with the same field in
// ApiManagementGatewayLogs"), DeploymentName (what the client asked for, preferred) and
// ModelName, PromptTokens, CompletionTokens, TotalTokens, IsStreamCompletion, OperationName,
// RequestMessages and ResponseMessages (the prompt and completion, when message logging is on;
// messages over 32 KB are split into several records numbered by SequenceNumber, "for later
// reconstruction"), TimeGenerated ("Date and time when request processing started").
//
// One request is joined from all the records of its CorrelationId (join.go): the LLM records
// in SequenceNumber order, their split messages concatenated, and the gateway record when the
// file has it. The arrival is the gateway record's TimeGenerated, else the LLM record's. The
// LLM table documents its TimeGenerated as the start of processing; the gateway table leaves
// its TimeGenerated undescribed, and it is read as the same instant (both describe one request,
// and TotalTime, "from first byte received ... to last byte a client received back", would
// be needed to go from an end to a start; it is not subtracted). A gateway record with no LLM
// record is read on its own (apimgateway.go: the classic gateway log, the usage in its logged
// response body, a failed model call as a failed request); without a usage or a failure it is
// plain API traffic, skipped, as are the other categories (WebSocket, MCP, developer portal).
// The messages' text is never kept.
//
// Said where it matters: the column names are the tables'; the diagnostic setting's nested
// properties are read by the same names without regard to case, as the 2020 gateway schema
// spells them in camelCase, but no document lists GatewayLlmLogs' nested names. The LLM log
// documents no cached-token or reasoning column, so cached and reasoning tokens are known
// only from a logged response body. IsStreamCompletion is documented as "indicating if the
// request specified stream mode to be false", which reads both ways; it is taken as true for
// a streamed request. The llm-emit-token-metric and azure-openai-emit-token-metric policies
// send aggregated metrics to Application Insights, not records: there is nothing per request
// in them to read.
var apimSchema = Schema{
	Format:  "apim",
	Doc:     "Azure API Management ApiManagementGatewayLogs + ApiManagementGatewayLlmLog (GatewayLogs, GatewayLlmLogs), joined by CorrelationId; GatewayLogs alone with bodies logged",
	Reads:   "Azure API Management's GatewayLlmLogs and GatewayLogs rows, joined by CorrelationId; GatewayLogs alone with the bodies logged",
	Example: `{"TimeGenerated":"2025-01-24T09:20:46.849Z","CorrelationId":"6f1c-1","DeploymentName":"gpt-4o-mini","PromptTokens":1500,"CompletionTokens":120}`,
	Time:    "TimeGenerated",
	Sniff:   sniffAPIM,
	Read:    readAPIM,
	Join:    joinAPIM,
}

// sniffAPIM claims a record of either log, in either form: by the table's name (the Type
// column of a Log Analytics export) or by the category of an API Management resource.
func sniffAPIM(first []byte) bool {
	low := bytes.ToLower(first)
	has := func(s string) bool { return bytes.Contains(low, []byte(s)) }
	if !has(`"correlationid"`) {
		return false
	}
	return has(`"apimanagementgatewayllmlog"`) || has(`"apimanagementgatewaylogs"`) ||
		(has("microsoft.apimanagement") && (has(`"gatewaylogs"`) || has(`"gatewayllmlogs"`)))
}

// The kinds of record in an APIM log.
const (
	apimOther = iota
	apimGateway
	apimLLM
)

func apimKind(r Record) int {
	typ, _ := apimGet(r, "Type").String()
	cat, _ := apimGet(r, "Category").String()
	switch {
	case strings.EqualFold(typ, "ApiManagementGatewayLlmLog") || strings.EqualFold(cat, "GatewayLlmLogs"):
		return apimLLM
	case strings.EqualFold(typ, "ApiManagementGatewayLogs") || strings.EqualFold(cat, "GatewayLogs"):
		return apimGateway
	case typ != "" || cat != "":
		return apimOther
	case apimGet(r, "PromptTokens").Exists() || apimGet(r, "SequenceNumber").Exists() || apimGet(r, "DeploymentName").Exists():
		return apimLLM // an export that left out Type and Category
	case apimGet(r, "Url").Exists() && apimGet(r, "ResponseCode").Exists():
		return apimGateway
	}
	return apimOther
}

// apimGet is a column of either form: a top-level member, else one of the resource log's
// properties, by name without regard to case (the tables spell CorrelationId, the resource log
// correlationId).
func apimGet(r Record, key string) Value {
	root := Value{v: r.root, ok: r.root != nil}
	if v := foldGet(root, key); v.Exists() {
		return v
	}
	if p := foldGet(root, "properties"); p.Exists() {
		if v := foldGet(p, key); v.Exists() {
			return v
		}
	}
	return root.Get(key)
}

// foldGet is v's member key, or the member whose name equals it without regard to case.
func foldGet(v Value, key string) Value {
	if m := v.Get(key); m.Exists() {
		return m
	}
	for _, k := range v.Keys() {
		if strings.EqualFold(k, key) {
			return v.Get(k)
		}
	}
	return v.Get(key)
}

// apimMessageKeys are the LLM log's columns that a long message is split across.
var apimMessageKeys = []string{"RequestMessages", "ResponseMessages"}

// joinAPIM groups the records of each CorrelationId into one: the LLM record that carries the
// token counts (else the first by SequenceNumber) with the split messages rejoined, the rest
// of the group in Parts. Records without a CorrelationId, of another category, and gateway
// records with no LLM record are returned alone (Read skips them).
func joinAPIM(recs []Record) []Record {
	type group struct{ llm, gateway []Record }
	groups := map[string]*group{}
	var ids []string
	var out []Record
	for _, r := range recs {
		kind := apimKind(r)
		id, _ := apimGet(r, "CorrelationId").String()
		if id == "" || kind == apimOther {
			out = append(out, r)
			continue
		}
		g := groups[id]
		if g == nil {
			g = &group{}
			groups[id] = g
			ids = append(ids, id)
		}
		if kind == apimLLM {
			g.llm = append(g.llm, r)
		} else {
			g.gateway = append(g.gateway, r)
		}
	}
	for _, id := range ids {
		g := groups[id]
		if len(g.llm) == 0 {
			out = append(out, g.gateway...)
			continue
		}
		// A SequenceNumber that is no number sorts first; Read names it.
		slices.SortStableFunc(g.llm, func(a, b Record) int {
			x, _, _ := apimGet(a, "SequenceNumber").Int()
			y, _, _ := apimGet(b, "SequenceNumber").Int()
			return x - y
		})
		lead := 0
		for i, r := range g.llm {
			if apimGet(r, "PromptTokens").Exists() || apimGet(r, "CompletionTokens").Exists() {
				lead = i
				break
			}
		}
		merged := g.llm[lead]
		merged.root = rejoinMessages(merged, g.llm)
		parts := slices.Concat(g.llm[:lead], g.llm[lead+1:])
		if len(g.gateway) > 0 {
			// One gateway record a CorrelationId; a second one is not this request's.
			parts = append(parts, g.gateway[0])
			out = append(out, g.gateway[1:]...)
		}
		merged.Parts = parts
		merged.Raw = joinedRaw(append([]Record{merged}, parts...))
		out = append(out, merged)
	}
	return out
}

// rejoinMessages is lead's decoded object with each message column holding the whole message:
// its chunks from the group's records, in SequenceNumber order, concatenated (text chunks) or
// appended (chunks logged as arrays), as the documentation's reconstruction asks. The members
// of lead are not changed in place; a column of mixed kinds is left as lead has it.
func rejoinMessages(lead Record, llm []Record) any {
	obj, ok := lead.root.(map[string]any)
	if !ok || len(llm) < 2 {
		return lead.root
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	target := out
	if p, ok := foldGet(Value{v: obj, ok: true}, "properties").v.(map[string]any); ok && !hasFold(obj, apimMessageKeys...) {
		target = make(map[string]any, len(p))
		for k, v := range p {
			target[k] = v
		}
		for k := range out {
			if strings.EqualFold(k, "properties") {
				out[k] = target
			}
		}
	}
	for _, key := range apimMessageKeys {
		var texts []string
		var items []any
		mixed := false
		n := 0
		for _, r := range llm {
			v := apimGet(r, key)
			if !v.Exists() {
				continue
			}
			n++
			switch x := v.v.(type) {
			case string:
				texts = append(texts, x)
			case []any:
				items = append(items, x...)
			default:
				mixed = true
			}
		}
		if n < 2 || mixed || (len(texts) > 0 && len(items) > 0) {
			continue
		}
		name := key
		for k := range target {
			if strings.EqualFold(k, key) {
				name = k
			}
		}
		if len(texts) > 0 {
			target[name] = strings.Join(texts, "")
		} else {
			target[name] = items
		}
	}
	return out
}

func hasFold(obj map[string]any, keys ...string) bool {
	for k := range obj {
		for _, key := range keys {
			if strings.EqualFold(k, key) {
				return true
			}
		}
	}
	return false
}

func readAPIM(rec Record) (Entry, error) {
	e := NewEntry()
	switch apimKind(rec) {
	case apimGateway: // no LLM record joined it: the classic gateway log (apimgateway.go)
		return readAPIMGateway(rec)
	case apimOther:
		return e, ErrNotModelRequest // another category
	}
	var gw *Record
	for i := range rec.Parts {
		p := &rec.Parts[i]
		if apimKind(*p) == apimGateway {
			gw = p
			continue
		}
		if _, _, err := apimGet(*p, "SequenceNumber").Int(); err != nil {
			return e, inPart(*p, err)
		}
	}
	if _, _, err := apimGet(rec, "SequenceNumber").Int(); err != nil {
		return e, err
	}
	prompt, completion := apimGet(rec, "PromptTokens"), apimGet(rec, "CompletionTokens")
	e.Model = firstString(apimGet(rec, "DeploymentName"), apimGet(rec, "ModelName"))
	if !prompt.Exists() && !completion.Exists() && e.Model == "" {
		return e, ErrNotModelRequest
	}
	var err error
	if e.PromptTokens, err = requiredInt(prompt); err != nil {
		return e, err
	}
	if e.OutputTokens, err = requiredInt(completion); err != nil {
		return e, err
	}
	if b, ok := apimGet(rec, "IsStreamCompletion").Bool(); ok {
		e.Stream = &b
	}
	e.API = apimOperationAPI(apimGet(rec, "OperationName"))
	if gw == nil {
		if e.Start, err = apimTime(rec); err != nil {
			return e, err
		}
		return e, nil
	}
	if err := apimGatewayInto(&e, *gw); err != nil {
		return e, inPart(*gw, err)
	}
	return e, nil
}

// apimGatewayInto reads what the gateway record adds: the arrival, the API, the status, the
// key, and, when bodies are logged, the cap and sampling and the cached and reasoning tokens
// (the OpenAI usage of the response body).
func apimGatewayInto(e *Entry, gw Record) error {
	var err error
	if e.Start, err = apimTime(gw); err != nil {
		return err
	}
	url, _ := apimGet(gw, "Url").String()
	url, _, _ = strings.Cut(url, "?")
	for _, p := range envoyLLMPaths {
		if strings.HasSuffix(url, p.suffix) {
			e.API = p.api
			break
		}
	}
	if code, ok, err := apimGet(gw, "ResponseCode").Int(); err != nil {
		return err
	} else if ok {
		e.Status = code
	}
	e.Key = firstString(apimGet(gw, "ApimSubscriptionId"), apimGet(gw, "UserId"))
	if err := samplingInto(e, firstPresent(apimGet(gw, "RequestBody"), apimGet(gw, "BackendRequestBody"))); err != nil {
		return err
	}
	usage := firstPresent(apimGet(gw, "BackendResponseBody"), apimGet(gw, "ResponseBody")).Get("usage")
	e.CachedTokens, err = cachedOf(usage.Get("prompt_tokens_details", "cached_tokens"), usage.Get("input_tokens_details", "cached_tokens"))
	if err != nil {
		return err
	}
	e.ReasoningTokens, err = usageReasoning(e.OutputTokens, usage)
	return err
}

// apimTime is a record's TimeGenerated (table) or time (resource log); it must be there.
func apimTime(r Record) (time.Time, error) {
	v := firstPresent(apimGet(r, "TimeGenerated"), apimGet(r, "time"))
	t, ok, err := v.Time(r.Year)
	if err != nil {
		return t, err
	}
	if !ok {
		return t, apimGet(r, "TimeGenerated").Err("missing (nor time)")
	}
	return t, nil
}

// apimOperationAPI is the API an LLM record's OperationName names (the operation ids of the
// Azure OpenAI API that APIM imports, ChatCompletions_Create and the like), "" when it names
// none; the gateway record's URL, when joined, says it for sure.
func apimOperationAPI(v Value) string {
	op, _ := v.String()
	op = strings.ToLower(op)
	switch {
	case strings.Contains(op, "chatcompletion") || strings.Contains(op, "chat_completion"):
		return trace.APIChat
	case strings.Contains(op, "embedding"):
		return trace.APIEmbeddings
	case strings.Contains(op, "response"):
		return trace.APIResponses
	case strings.Contains(op, "completion"):
		return trace.APICompletions
	}
	return ""
}

// inPart says which of a merged request's records an error is in: the request is named by its
// LLM record's line, a field of another record by that record's line too.
func inPart(p Record, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return &FieldError{Field: fe.Field, Err: fmt.Errorf("in the record on line %d: %w", p.Line, fe.Err)}
	}
	return fmt.Errorf("in the record on line %d: %w", p.Line, err)
}
