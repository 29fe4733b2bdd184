package client

import (
	"context"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/llm-replay/replay/chat"
)

// A body encoded ahead of the send reaches the server exactly as the one encoded at the send,
// and its answer is judged the same way (here: usage and content required).
func TestEncodedAheadIsTheSameRequest(t *testing.T) {
	var inline, ahead map[string]any
	srvA := httptest.NewServer(vllmChat(5, 0, &inline))
	defer srvA.Close()
	srvB := httptest.NewServer(vllmChat(5, 0, &ahead))
	defer srvB.Close()
	temp := 0.3
	req := Request{Messages: []chat.Message{{Role: "user", Content: "hello <&> \u2028"}}, MaxTokens: 5, ID: "7",
		Options: &Options{Temperature: &temp}}
	a := newClient(t, srvA.URL, APIChat, nil)
	b := newClient(t, srvB.URL, APIChat, nil)
	ra := a.Do(context.Background(), req, newClock())
	e, err := b.Encode(req)
	if err != nil {
		t.Fatal(err)
	}
	req.Encoded = e
	rb := b.Do(context.Background(), req, newClock())
	if !ra.OK() || !rb.OK() {
		t.Fatalf("inline %s %s, ahead %s %s", ra.ErrorClass, ra.ErrorMessage, rb.ErrorClass, rb.ErrorMessage)
	}
	if !reflect.DeepEqual(inline, ahead) {
		t.Fatalf("bodies differ:\ninline %v\nahead  %v", inline, ahead)
	}
	if len(rb.ChunkNS) != 5 || rb.CompletionTokens != 5 {
		t.Fatalf("ahead: %d chunks, %d completion tokens", len(rb.ChunkNS), rb.CompletionTokens)
	}
}
