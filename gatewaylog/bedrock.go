package gatewaylog

import (
	"bytes"
	"strings"

	"github.com/llm-replay/replay/trace"
)

// bedrockSchema reads AWS Bedrock's model invocation logs, one ModelInvocationLog record a
// line (as delivered to CloudWatch Logs or, one per line, to S3). The record is defined in the
// Amazon Bedrock User Guide, "Monitor model invocation using CloudWatch Logs and Amazon S3"
// (schemaType "ModelInvocationLog", schemaVersion "1.0"):
//   - timestamp (ISO 8601, UTC), accountId, identity.arn, region, requestId;
//   - operation: InvokeModel, InvokeModelWithResponseStream, Converse, ConverseStream (the
//     *Stream operations streamed);
//   - modelId;
//   - input: inputContentType, inputBodyJson (the provider-native body, logged when the
//     account opted in to text delivery), inputTokenCount, cacheReadInputTokenCount,
//     cacheWriteInputTokenCount;
//   - output: outputContentType, outputBodyJson, outputTokenCount.
//
// The output cap and sampling come from the body by its shape: Converse's
// inferenceConfig.maxTokens/temperature/topP, Anthropic's messages body max_tokens, Meta
// Llama's max_gen_len, Amazon Titan's textGenerationConfig.maxTokenCount. Records of another
// schemaType are skipped. The prompt counts Bedrock logs are the provider's own: prompt
// tokens include cache reads and writes as Bedrock counts them (inputTokenCount excludes
// them, so they are added back, as Anthropic's usage is read elsewhere). The record's
// timestamp is taken as the request's arrival: the guide does not say it is the end.
var bedrockSchema = Schema{
	Format:  "bedrock",
	Doc:     "AWS Bedrock ModelInvocationLog 1.0 (Amazon Bedrock User Guide, model invocation logging)",
	Reads:   "AWS Bedrock's model invocation logs",
	Example: `{"schemaType":"ModelInvocationLog","timestamp":"2025-01-24T09:20:46.847Z","modelId":"m","input":{"inputTokenCount":800},"output":{"outputTokenCount":120}}`,
	Time:    "timestamp",
	Sniff: func(first []byte) bool {
		return bytes.Contains(first, []byte(`"ModelInvocationLog"`)) && bytes.Contains(first, []byte(`"modelId"`))
	},
	Read: readBedrock,
}

func readBedrock(rec Record) (Entry, error) {
	e := NewEntry()
	if st, _ := rec.Get("schemaType").String(); st != "ModelInvocationLog" {
		return e, ErrNotModelRequest
	}
	var err error
	if e.Start, _, err = rec.Get("timestamp").Time(rec.Year); err != nil {
		return e, err
	}
	if e.Start.IsZero() {
		return e, rec.Get("timestamp").Err("missing")
	}
	op, _ := rec.Get("operation").String()
	stream := strings.HasSuffix(op, "Stream")
	e.Stream = &stream
	e.API = trace.APIChat // Converse and messages-shaped bodies are conversations
	e.Model, _ = rec.Get("modelId").String()
	in, out := rec.Get("input"), rec.Get("output")
	if e.PromptTokens, err = requiredInt(in.Get("inputTokenCount")); err != nil {
		return e, err
	}
	if e.OutputTokens, err = requiredInt(out.Get("outputTokenCount")); err != nil {
		return e, err
	}
	read, okR, err := in.Get("cacheReadInputTokenCount").Int()
	if err != nil {
		return e, err
	}
	write, _, err := in.Get("cacheWriteInputTokenCount").Int()
	if err != nil {
		return e, err
	}
	e.PromptTokens += read + write
	if okR {
		e.CachedTokens = read
	}
	body := in.Get("inputBodyJson")
	if err := bedrockSampling(&e, body); err != nil {
		return e, err
	}
	if err := bedrockImages(&e, body); err != nil {
		return e, err
	}
	e.Key, _ = rec.Get("identity", "arn").String()
	return e, nil
}

// bedrockSampling reads the output cap and sampling of a provider-native body by its shape.
func bedrockSampling(e *Entry, body Value) error {
	if ic := body.Get("inferenceConfig"); ic.Exists() { // Converse
		return samplingFrom(e, ic, "maxTokens", "temperature", "topP")
	}
	if tg := body.Get("textGenerationConfig"); tg.Exists() { // Amazon Titan
		return samplingFrom(e, tg, "maxTokenCount", "temperature", "topP")
	}
	if body.Get("max_gen_len").Exists() { // Meta Llama
		return samplingFrom(e, body, "max_gen_len", "temperature", "top_p")
	}
	return samplingInto(e, body) // Anthropic's messages body and other OpenAI-like ones
}

// bedrockImages reads the images of a logged body, a Converse one's image blocks or an
// Anthropic messages body's (images.go), counted by the logged model's rule.
func bedrockImages(e *Entry, body Value) error {
	imgs, err := converseImages(body)
	if err != nil {
		return err
	}
	more, err := anthropicImages(body)
	if err != nil {
		return err
	}
	return countImages(e, append(imgs, more...), -1, body)
}
