package serve

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/seed4d941b13/uidgen/segment"
)

// Leaf's routes answer as Meituan's leaf-server 1.0.1 does (Spring Boot
// 1.5.18, leaf-server/pom.xml), so that its clients need only a new host:
//
//   - success: 200, the number as text/plain, no newline
//     (LeafController.get returns String.valueOf(result.getId())).
//   - a failure: 500 and Spring Boot's error body, for the controller
//     throws LeafServerException(result.toString()), which is
//     @ResponseStatus(INTERNAL_SERVER_ERROR) without a reason
//     (server/exception/LeafServerException.java). Boot 1.5's
//     DefaultErrorAttributes fill the body: timestamp (a java.util.Date,
//     which Boot 1.5's Jackson writes as Unix milliseconds), status,
//     error (the status's reason phrase), exception (the class), message
//     (the exception's), path (the request's URI).
//   - the message is the Result's toString (leaf-core common/Result.java):
//     "Result{id=-2, status=EXCEPTION}" for a key that is not in the table
//     (SegmentIDGenImpl.EXCEPTION_ID_KEY_NOT_EXISTS), and
//     "Result{id=-3, status=EXCEPTION}" when the database fails it
//     (EXCEPTION_ID_TWO_SEGMENTS_ARE_NULL: no range could be loaded).
//     Serve answers -3 for every failure of a tag that is in the table,
//     as too many tags and a tag row gone; its own routes say which.
//
// Leaf's snowflake fails for its clock (Result ids -1 to -3,
// leaf-core snowflake/SnowflakeIDGenImpl.java), which serve's generator
// does not: its failure gets the same 500 and body, with its own message.
//
// With segment mode off, leaf-server's segment route answers 200 and "0"
// (ZeroIDGen, through SegmentService): serve answers 500 in the failure's
// shape instead, with a message that says why, for a 0 would be handed out
// as an ID.
const (
	leafException    = "com.sankuai.inf.leaf.server.exception.LeafServerException"
	leafMissingParam = "org.springframework.web.bind.MissingServletRequestParameterException"
	// leafEpochMillis is Leaf's twepoch, which decodeSnowflakeId adds.
	leafEpochMillis = 1288834974657
	leafNoKey       = "Result{id=-2, status=EXCEPTION}"
	leafFailed      = "Result{id=-3, status=EXCEPTION}"
)

// The Content-Type values of leaf-server's answers: a number, an error.
var (
	leafText = []string{"text/plain;charset=UTF-8"}
	leafJSON = []string{"application/json;charset=UTF-8"}
)

// leafError is Spring Boot 1.5's error body, its fields in Boot's order.
type leafError struct {
	Timestamp int64  `json:"timestamp"`
	Status    int    `json:"status"`
	Error     string `json:"error"`
	Exception string `json:"exception"`
	Message   string `json:"message"`
	Path      string `json:"path"`
}

// leafSegment is Leaf's GET /api/segment/get/{key}: the tag's next number.
func (s *Server) leafSegment(w http.ResponseWriter, r *http.Request) {
	if s.tags == nil {
		s.leafFail(w, r, ErrSegmentOff.Error())
		return
	}
	// A -serial's tags are its own, as on /segment/. Leaf has no serials,
	// so no answer of Leaf's fits: 409, in Leaf's body, saying why, rather
	// than the 500 of a failing database.
	if why, ok := s.tags.serials.owned(r.PathValue("key")); ok {
		s.leafError(w, r, http.StatusConflict, leafException, why)
		return
	}
	g, err := s.tags.generator(r.Context(), r.PathValue("key"))
	switch {
	case errors.Is(err, errUnknownTag), errors.Is(err, segment.ErrBadTag):
		s.leafFail(w, r, leafNoKey)
		return
	case err != nil:
		s.leafFail(w, r, leafFailed)
		return
	}
	n, err := g.NextID()
	if err != nil {
		s.leafFail(w, r, leafFailed)
		return
	}
	leafWrite(w, n)
}

// leafSnowflake is Leaf's GET /api/snowflake/get/{key}: an ID of serve's
// generator. Leaf's snowflake ignores the key, and so does this.
func (s *Server) leafSnowflake(w http.ResponseWriter, r *http.Request) {
	uid, err := s.g.NextID()
	if err != nil {
		s.leafFail(w, r, err.Error())
		return
	}
	leafWrite(w, uid)
}

// leafDecode is leaf-server's decodeSnowflakeId (LeafMonitorController):
// snowflakeId taken apart in Leaf's layout, whatever serve's own, with
// Leaf's arithmetic (Java's >> keeps the sign), its fields as strings:
//
//	{"timestamp":"1567733700834(2019-09-06 09:35:00.834)","sequenceId":"3448","workerId":"39"}
//
// in the server's zone, as SimpleDateFormat's. A value that is not a
// number gets Leaf's errorMsg; no value, Spring's 400.
func (s *Server) leafDecode(w http.ResponseWriter, r *http.Request) {
	q, ok := r.URL.Query()["snowflakeId"]
	if !ok {
		s.leafError(w, r, http.StatusBadRequest, leafMissingParam, "Required String parameter 'snowflakeId' is not present")
		return
	}
	out := map[string]string{}
	if id, err := strconv.ParseInt(q[0], 10, 64); err != nil {
		out["errorMsg"] = "snowflake Id反解析发生异常!"
	} else {
		ms := id>>22 + leafEpochMillis
		out["timestamp"] = strconv.FormatInt(ms, 10) + "(" + time.UnixMilli(ms).Format("2006-01-02 15:04:05.000") + ")"
		out["workerId"] = strconv.FormatInt(id>>12^id>>22<<10, 10)
		out["sequenceId"] = strconv.FormatInt(id^id>>12<<12, 10)
	}
	body, _ := json.Marshal(out) // a map of strings always marshals
	w.Header()["Content-Type"] = leafJSON
	w.Write(body)
}

func leafWrite(w http.ResponseWriter, n int64) {
	var buf [20]byte
	w.Header()["Content-Type"] = leafText
	w.Write(strconv.AppendInt(buf[:0], n, 10))
}

// leafFail answers 500 with Spring Boot's body for LeafServerException(msg).
func (s *Server) leafFail(w http.ResponseWriter, r *http.Request, msg string) {
	s.leafError(w, r, http.StatusInternalServerError, leafException, msg)
}

// leafError answers status with Spring Boot's body for an exception of
// class exception and message msg.
func (s *Server) leafError(w http.ResponseWriter, r *http.Request, status int, exception, msg string) {
	body, err := json.Marshal(leafError{
		Timestamp: s.now().UnixMilli(), Status: status, Error: http.StatusText(status),
		Exception: exception, Message: msg, Path: r.URL.EscapedPath(),
	})
	if err != nil {
		body = []byte(`{"status":` + strconv.Itoa(status) + `}`)
	}
	w.Header()["Content-Type"] = leafJSON
	w.WriteHeader(status)
	w.Write(body)
}
