// Package media knows the images a request log's chat messages carry, without keeping them:
// a data URL's bytes (dataurl.go), the format and size read from a file's header (header.go),
// the --image-size form (size.go), how many prompt tokens a model's processor turns an image
// into, chosen from the model's folder as Hugging Face chooses it (rule.go: config.json's
// model_type and preprocessor_config.json; one file per family, each citing its source), the
// hosted models' documented counts a gateway log's prompt holds (logged.go), and the
// deterministic stand-in image a replay sends for a logged one (standin.go).
//
// It is a leaf: it imports nothing of the module, knows no tokenizer (a rule is given a
// counting function for the text its processor wraps an image in) and never sends or stores
// logged pixels. requestlog reads logged parts with it, synth builds the images it sends, and
// the simulator counts what it receives with the same rules, so the three agree.
package media
