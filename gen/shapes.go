package gen

// The parameters below are fits to the figures cited in doc.go (stats_test.go checks them);
// the comments say which figure each serves. Token lengths are drawn per piece (a message, an
// answer, a tool result), so the prompt of a later turn is the sum of what came before, as in
// real traffic, and the fits are to the resulting prompt lengths, not to the pieces.

// maxPrompt keeps every prompt under 16k tokens, so the default trace synthesizes quickly;
// a session whose next turn would pass it ends there.
const maxPrompt = 16000

// part is one shape of a blend with its share of the requests.
type part struct {
	name  string
	share float64
}

// blend is what a Config.Shape generates. Mixed is half chat, 30% code completions and 20%
// agent steps, by requests: conversation is the bulk of the Azure 2023 traces (19,366 of
// 28,185 requests), and agents are the newest, longest-prompt share.
func blend(shape string) []part {
	if shape == "mixed" {
		return []part{{"chat", 0.5}, {"code", 0.3}, {"agent", 0.2}}
	}
	return []part{{shape, 1}}
}

// newShape builds a shape with its shared pools (system prompts, repositories, tool sets);
// tag keeps its ids apart from the other shapes' in a blend.
func newShape(name string, tag uint64) shape {
	switch name {
	case "chat":
		return newChat(tag)
	case "code":
		return newCode(tag)
	}
	return newAgent(tag)
}

// chat is conversation traffic (Splitwise / Azure 2023 conversation lengths): a shared system
// prompt, then turns whose prompt is the previous prompt, its answer and a new user message.
type chat struct {
	system   []segment
	pick     zipf
	message  logNormal
	output   logNormal
	cont     float64 // probability of one more turn
	maxTurns int
	think    logNormal // seconds between an answer and the next user message
}

func newChat(tag uint64) *chat {
	return &chat{
		// A few system prompts (product personas), the most popular on most requests: every
		// request of the Mooncake conversation trace starts with the same block. Their
		// lengths, the messages' and cont make prompt p50 1,020 / p90 2,734 (Azure conv)
		// and the 40% reuse ratio (Mooncake conversation).
		system:  pool(tag, kindSystem, 12, logNormal{median: 480, sigma: 0.35, min: 64, max: 2048}),
		pick:    newZipf(12, 1.3),
		message: logNormal{median: 195, sigma: 1.35, min: 4, max: 12000},
		// Output p50 129 (Splitwise), p90 424 = 129 e^(1.2816 x 0.93) (Azure conv); the
		// conversation trace's answers stop at 1,000 tokens.
		output:   logNormal{median: 129, sigma: 0.93, min: 1, max: 1000},
		cont:     0.4,
		maxTurns: 12,
		think:    logNormal{median: 20, sigma: 0.9},
	}
}

func (c *chat) sessions() bool { return true }
func (c *chat) burst() float64 { return 0.2 }

func (c *chat) plan(p *planner, start float64) []request {
	segs := []segment{c.system[c.pick.pick(p.r)]}
	prompt := segs[0].n
	t := start
	var reqs []request
	for turn := 0; turn < c.maxTurns; turn++ {
		m := p.unique(kindMessage, c.message.draw(p.r))
		if turn == 0 {
			m.n = min(m.n, maxPrompt-prompt)
		} else if prompt+m.n > maxPrompt {
			break
		}
		segs = append(segs, m)
		prompt += m.n
		out := c.output.draw(p.r)
		reqs = append(reqs, request{at: t, segs: view(segs), prompt: prompt, output: out, turn: turn})
		if p.r.Float64() >= c.cont {
			break
		}
		t += answerTime(prompt, out) + c.think.seconds(p.r)
		segs = append(segs, p.unique(kindAnswer, out))
		prompt += out
	}
	return reqs
}

// code is code completion traffic (Splitwise / Azure 2023 coding lengths): a developer types
// in a file and the editor asks for the next few tokens every few seconds. Each prompt is an
// optional repository header (shared by everyone on that repository) and the file up to the
// cursor, so successive completions share everything before the previous cursor.
type code struct {
	repos    []segment
	pick     zipf
	header   float64   // share of completions sent with the repository header
	files    []segment // files developers come back to (ids only: a file has no length)
	pickFile zipf
	reopen   float64   // share of bursts in one of files, rather than in a new file
	first    logNormal // prompt length of a burst's first completion
	typed    logNormal // tokens typed between completions
	again    float64   // share of completions asked again at the same cursor
	output   logNormal
	cont     float64 // probability of one more completion in the burst
	maxBurst int
	pause    logNormal // seconds between completions
	window   int       // the model's context: longer files slide
}

func newCode(tag uint64) *code {
	// first, typed and the header lengths make prompt p50 1,500 (Splitwise) / p90 5,186
	// (Azure code); reopen, again and cont make the 66% reuse ratio (see doc.go).
	return &code{
		repos:    pool(tag, kindRepo, 100, logNormal{median: 700, sigma: 0.5, min: 64, max: 4096}),
		pick:     newZipf(100, 1.2),
		header:   0.85,
		files:    pool(tag, kindFile, 2000, logNormal{}),
		pickFile: newZipf(2000, 1.1),
		reopen:   0.7,
		first:    logNormal{median: 1400, sigma: 0.95, min: 16, max: 7400},
		typed:    logNormal{median: 20, sigma: 0.8, min: 1, max: 1000},
		again:    0.3,
		output:   logNormal{median: 13, sigma: 1.12, min: 1, max: 1000}, // p50 13 (Splitwise), p90 55 (Azure code)
		cont:     0.8,
		maxBurst: 40,
		pause:    logNormal{median: 3, sigma: 0.8},
		// The coding trace's prompts stop at 7,437 tokens: an 8k-context model.
		window: 7437,
	}
}

func (c *code) sessions() bool { return false }
func (c *code) burst() float64 { return 0.15 }

func (c *code) plan(p *planner, start float64) []request {
	first := c.first.draw(p.r)
	// Short prompts (a snippet, a one-line question) come without the repository header.
	var head []segment
	if repo := c.repos[c.pick.pick(p.r)]; p.r.Float64() < c.header && first > 2*repo.n {
		head = []segment{repo}
	}
	headN := 0
	for _, s := range head {
		headN += s.n
	}
	file := p.unique(kindFile, 0)
	if p.r.Float64() < c.reopen {
		file = c.files[c.pickFile.pick(p.r)]
	}
	cursor := first - headN
	t := start
	var reqs []request
	room := c.window - headN
	for k := 0; k < c.maxBurst; k++ {
		// A file longer than the context keeps its last tokens before the cursor: the window
		// slides, and its prompt shares no prefix with the previous one past the header.
		file.from, file.n = max(0, cursor-room), min(cursor, room)
		segs := append(view(head), file)
		reqs = append(reqs, request{at: t, segs: segs, prompt: headN + file.n, output: c.output.draw(p.r), turn: k})
		if p.r.Float64() >= c.cont {
			break
		}
		t += c.pause.seconds(p.r)
		if p.r.Float64() >= c.again {
			cursor += c.typed.draw(p.r)
		}
	}
	return reqs
}

// agent is tool-using agent traffic (Mooncake tool&agent): a long tool-definition system
// prompt from a few fixed sets, often a shared document, a task, then steps that each append
// the model's tool call and the tool's result.
type agent struct {
	tools    []segment
	toolW    []float64
	docs     []segment
	pick     zipf
	doc      float64 // share of tasks that carry a shared document
	task     logNormal
	result   logNormal
	output   logNormal
	cont     float64 // probability of one more step
	maxSteps int
	tool     logNormal // seconds a tool takes before the next step
}

func newAgent(tag uint64) *agent {
	// Tools, documents, tasks and results make the mean prompt 8,596 and the 59% reuse ratio
	// (Mooncake tool&agent); the output's mean is 68 e^(1.4^2/2) = 182, its long tail the
	// occasional long answer after short tool calls.
	return &agent{
		tools:    pool(tag, kindTools, 4, logNormal{median: 2500, sigma: 0.3, min: 1024, max: 6000}),
		toolW:    []float64{0.45, 0.35, 0.15, 0.05},
		docs:     pool(tag, kindDoc, 1000, logNormal{median: 2000, sigma: 0.6, min: 256, max: 8000}),
		pick:     newZipf(1000, 0.9),
		doc:      0.4,
		task:     logNormal{median: 2800, sigma: 1.0, min: 8, max: 8000},
		result:   logNormal{median: 1300, sigma: 1.0, min: 8, max: 6000},
		output:   logNormal{median: 68, sigma: 1.4, min: 1, max: 4096},
		cont:     0.5,
		maxSteps: 24,
		tool:     logNormal{median: 1, sigma: 1.0},
	}
}

func (a *agent) sessions() bool { return true }
func (a *agent) burst() float64 { return 0.2 }

func (a *agent) plan(p *planner, start float64) []request {
	segs := []segment{a.tools[weighted(p.r, a.toolW)]}
	if p.r.Float64() < a.doc {
		segs = append(segs, a.docs[a.pick.pick(p.r)])
	}
	prompt := 0
	for _, s := range segs {
		prompt += s.n
	}
	task := p.unique(kindMessage, min(a.task.draw(p.r), maxPrompt-prompt))
	segs = append(segs, task)
	prompt += task.n
	t := start
	var reqs []request
	for step := 0; step < a.maxSteps && prompt <= maxPrompt; step++ {
		out := a.output.draw(p.r)
		reqs = append(reqs, request{at: t, segs: view(segs), prompt: prompt, output: out, turn: step})
		if p.r.Float64() >= a.cont {
			break
		}
		t += answerTime(prompt, out) + a.tool.seconds(p.r)
		res := p.unique(kindToolResult, a.result.draw(p.r))
		segs = append(segs, p.unique(kindAnswer, out), res)
		prompt += out + res.n
	}
	return reqs
}
