package main

import (
	"encoding/json"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen"
)

// leaf-server's error bodies, as its clients read them: the tests spell
// them out rather than read serve's constants, so that a change of the
// wire fails them.
const (
	leafException    = "com.sankuai.inf.leaf.server.exception.LeafServerException"
	leafMissingParam = "org.springframework.web.bind.MissingServletRequestParameterException"
	leafNoKey        = "Result{id=-2, status=EXCEPTION}"
	leafFailed       = "Result{id=-3, status=EXCEPTION}"
)

// TestServeLeafSnowflake: serve -layout leaf hands out IDs in Leaf's own
// layout on Leaf's snowflake route, above an older Leaf's last ID with
// -after, and answers Leaf's decodeSnowflakeId as leaf-server does: its
// documented example, the IDs it handed out (worker 5, now), a value that
// is not a number (Leaf's errorMsg) and no value (Spring's 400).
func TestServeLeafSnowflake(t *testing.T) {
	leaf, err := uidgen.NamedLayout("leaf")
	if err != nil {
		t.Fatal(err)
	}
	after := leaf.Bits().Allocate(time.Since(leaf.Epoch()).Milliseconds()+2_000, 1023, 4095) // an older Leaf two seconds ahead
	srv := startServer(t, "-layout", "leaf", "-worker", "5", "-after", strconv.FormatInt(after, 10))
	decode := func(id string) map[string]string {
		t.Helper()
		r := srv.do(t, "GET", "/decodeSnowflakeId?snowflakeId="+id)
		var m map[string]string
		if err := json.Unmarshal([]byte(r.body), &m); r.status != 200 || r.header.Get("Content-Type") != "application/json;charset=UTF-8" || err != nil {
			t.Fatalf("decodeSnowflakeId %s: %d %s %s (%v)", id, r.status, r.header.Get("Content-Type"), r.body, err)
		}
		return m
	}

	// Leaf's comment: 1567733700834(2019-09-06 09:35:00.834), worker 39,
	// sequence 3448.
	doc := (int64(1567733700834)-1288834974657)<<22 | 39<<12 | 3448
	want := "1567733700834(" + time.UnixMilli(1567733700834).Format("2006-01-02 15:04:05.000") + ")"
	if m := decode(strconv.FormatInt(doc, 10)); m["timestamp"] != want || m["workerId"] != "39" || m["sequenceId"] != "3448" || len(m) != 3 {
		t.Errorf("decodeSnowflakeId of Leaf's example %d: %v, want timestamp %s, workerId 39, sequenceId 3448", doc, m, want)
	}

	var last int64
	for range 100 {
		uid := leafNumber(t, srv.do(t, "GET", "/api/snowflake/get/order"), "/api/snowflake/get/order")
		if uid <= after || uid <= last {
			t.Fatalf("ID %d after %d, with -after %d: want above both", uid, last, after)
		}
		last = uid
		id := leaf.Parse(uid)
		m := decode(strconv.FormatInt(uid, 10))
		ms := strconv.FormatInt(id.Time.UnixMilli(), 10)
		if id.WorkerID != 5 || m["workerId"] != "5" || m["sequenceId"] != strconv.FormatInt(id.Sequence, 10) ||
			m["timestamp"] != ms+"("+id.Time.Format("2006-01-02 15:04:05.000")+")" || time.Until(id.Time) > 3*time.Second {
			t.Fatalf("ID %d is %+v, which decodeSnowflakeId reads as %v; want worker 5, within -after's 2 s of now", uid, id, m)
		}
	}

	if m := decode("x12"); m["errorMsg"] != "snowflake Id反解析发生异常!" || len(m) != 1 {
		t.Errorf("decodeSnowflakeId of x12: %v, want Leaf's errorMsg alone", m)
	}
	r := srv.do(t, "GET", "/decodeSnowflakeId")
	var b leafBody
	if err := json.Unmarshal([]byte(r.body), &b); r.status != 400 || err != nil || b.Status != 400 ||
		b.Exception != leafMissingParam || b.Message != "Required String parameter 'snowflakeId' is not present" || b.Path != "/decodeSnowflakeId" {
		t.Errorf("decodeSnowflakeId without snowflakeId: %d %s (%v), want Spring's 400", r.status, r.body, err)
	}
	srv.stop(t, syscall.SIGTERM)
}
