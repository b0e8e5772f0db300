package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/seed4d941b13/uidgen/bench/internal/resultsmd"
)

const wrkOutput = `Running 3s test @ http://127.0.0.1:40001/id
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   780.12us  300.00us   9.00ms   90.00%
    Req/Sec    41.20k     1.00k   43.00k    80.00%
  123456 requests in 3.00s, 15.00MB read
Requests/sec:  41152.00
Transfer/sec:      5.00MB
`

func TestRequestsPerSecond(t *testing.T) {
	if rps, err := requestsPerSecond([]byte(wrkOutput)); err != nil || rps != 41152 {
		t.Errorf("requestsPerSecond = %v, %v; want 41152", rps, err)
	}
	failed := strings.Replace(wrkOutput, "Requests/sec", "  Non-2xx or 3xx responses: 12\nRequests/sec", 1)
	if _, err := requestsPerSecond([]byte(failed)); err == nil || !strings.Contains(err.Error(), "Non-2xx or 3xx responses: 12") {
		t.Errorf("with failed requests: %v, want an error that quotes wrk", err)
	}
	if _, err := requestsPerSecond([]byte("unable to connect")); err == nil {
		t.Error("no Requests/sec: no error")
	}
}

// TestBareReplies: the bare handler's replies are what uidgen serve sends,
// byte for byte in length and form.
func TestBareReplies(t *testing.T) {
	id, ids := bareReplies()
	if string(id) != sampleID+"\n" {
		t.Errorf("/id reply %q", id)
	}
	var list []string
	if err := json.Unmarshal(ids, &list); err != nil || len(list) != batch || list[batch-1] != sampleID || ids[len(ids)-1] != '\n' {
		t.Errorf("/ids reply: %d IDs, %v; want a JSON array of %d strings and a newline", len(list), err, batch)
	}
}

// TestMarkdown: the section starts with its heading, gives medians with
// the slowest and fastest run, and the ratios of the medians.
func TestMarkdown(t *testing.T) {
	runs := map[string][]float64{
		"bare /id": {30e3, 40e3, 50e3}, "uidgen /id": {20e3, 36e3, 60e3},
		"bare /ids": {19e3, 20e3, 21e3}, "uidgen /ids": {10e3, 12e3, 13e3},
	}
	md := markdown(map[string]map[string][]float64{"unpinned": runs}, "wrk 4.1.0", time.Second, 3, 32)
	for _, want := range []string{
		"| | unpinned |\n",
		"| bare handler, /id: req/s | 40.0k (30.0k–50.0k) |\n",
		"| **/id ÷ bare** (goal: 0.8 or more) | **0.90** |\n",
		"| … IDs/s | 12.0M |\n",
		"| **IDs/s through /ids ÷ bare /id req/s** | **300×** |\n",
		"| /ids req/s ÷ bare /ids (same size) | 0.60 |\n",
		"3 rounds of 1s",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("section lacks %q:\n%s", want, md)
		}
	}
	if !strings.HasPrefix(md, resultsmd.Serve) || strings.Contains(md, "| pinned |") {
		t.Errorf("want the heading first and only the placement measured:\n%s", md)
	}
}
