package client

import (
	"fmt"
	"strings"
)

// API names accepted in Config.API and Request.API: the same strings as trace's API
// constants, so a logged request's Options.API names the endpoint it is sent to.
const (
	APIChat        = "chat"        // POST /chat/completions
	APICompletions = "completions" // POST /completions
	APIResponses   = "responses"   // POST /responses (OpenAI's Responses API)
	APIMessages    = "messages"    // POST /messages (Anthropic's Messages API)
	APIEmbeddings  = "embeddings"  // POST /embeddings
)

// apiKind is an API as the client dispatches on it: an index into the tables below, so a
// request's API costs no map look-up or string compare on the send path.
type apiKind uint8

const (
	kindChat apiKind = iota
	kindCompletions
	kindResponses
	kindMessages
	kindEmbeddings
	nKinds
)

// apiNames and apiPaths are each kind's name and path under the base URL.
var (
	apiNames = [nKinds]string{APIChat, APICompletions, APIResponses, APIMessages, APIEmbeddings}
	apiPaths = [nKinds]string{"/chat/completions", "/completions", "/responses", "/messages", "/embeddings"}
)

// anthropicVersion is the anthropic-version header Anthropic's Messages API requires
// (https://docs.anthropic.com/en/api/versioning: 2023-06-01 is the current version); engines
// that serve /v1/messages ignore it.
const anthropicVersion = "2023-06-01"

// apiKindOf is name's kind; ok is false for a name that is none of the five.
func apiKindOf(name string) (k apiKind, ok bool) {
	for i, n := range apiNames {
		if n == name {
			return apiKind(i), true
		}
	}
	return 0, false
}

// String is the kind's API name.
func (a apiKind) String() string { return apiNames[a] }

// typed reports whether the API streams typed events (an "event:" line and a JSON "type"
// per event: the Responses and Messages APIs) rather than chat's data-only chunks.
func (a apiKind) typed() bool { return a == kindResponses || a == kindMessages }

// unknownAPI is the error for an API name that is none of the five.
func unknownAPI(what, name string) error {
	return fmt.Errorf("client: %s %q: want one of %s", what, name, strings.Join(apiNames[:], ", "))
}

// endName is what ends a complete stream of the API, for messages.
func (a apiKind) endName() string {
	switch a {
	case kindResponses:
		return "response.completed"
	case kindMessages:
		return "message_stop"
	}
	return "[DONE]"
}

// APIPath is the path of an API (chat, completions, responses, messages, embeddings) under the
// base URL, e.g. "/chat/completions"; ok is false for a name that is none of the five.
func APIPath(name string) (path string, ok bool) {
	k, ok := apiKindOf(name)
	if !ok {
		return "", false
	}
	return apiPaths[k], true
}
