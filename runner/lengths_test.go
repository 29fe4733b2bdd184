package runner

// anyLengths is --min-exact 0, for tests whose endpoint counts prompts approximately (the
// simulator given no tokenizer, a fake engine): what they judge is not the lengths, and the
// first-contact tests of cmd/replay hold the lengths' verdict.
var anyLengths = func() *float64 { v := 0.0; return &v }()
