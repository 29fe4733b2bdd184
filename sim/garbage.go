package sim

import (
	"net/http"
	"strconv"
)

// garbageBody is what a garbage fault answers: SSE frames shaped like an answer whose data is
// not JSON (a broken proxy, a truncated upstream), then a well-formed end, so a client must
// notice the frames themselves rather than a missing [DONE] or a cut stream.
const garbageBody = "data: {\"id\": garbage\n\n" +
	"data: not json\n\n" +
	"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" tok\"\n\n" +
	"data: [DONE]\n\n"

// writeGarbage answers a garbage fault, the same for streaming and non-streaming requests:
// a client that asked for JSON gets an event stream it cannot parse, which is garbage too.
func writeGarbage(w http.ResponseWriter) {
	sseHeaders(w)
	w.Header().Set("Content-Length", strconv.Itoa(len(garbageBody)))
	w.WriteHeader(http.StatusOK)
	w.Write([]byte(garbageBody))
}
