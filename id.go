package uidgen

import (
	"fmt"
	"time"
)

// ID is a UID taken apart: what Layout.Parse returns for Go callers.
//
// Its JSON carries the numbers as strings, as Baidu's parse string does: a
// UID is above 2^53, the largest integer a JavaScript number holds exactly,
// so a UID sent as a JSON number reaches a browser already changed.
type ID struct {
	UID int64 `json:"uid,string"`
	// Time is the layout's epoch plus the ID's ticks: to the second in
	// Baidu's layouts, to the millisecond in Twitter's, and so in its JSON.
	Time time.Time `json:"time"`
	// WorkerID is the whole worker field: Twitter's and Discord's
	// datacenter and worker together, sonyflake's machine ID.
	WorkerID int64 `json:"workerId,string"`
	Sequence int64 `json:"sequence,string"`
	// Gene is the gene field of a layout with gene bits, 0 for Baidu's.
	Gene int64 `json:"gene,string,omitempty"`
}

// baiduTimeLayout is Java's "yyyy-MM-dd HH:mm:ss".
const baiduTimeLayout = "2006-01-02 15:04:05"

// String formats the ID exactly as Baidu's parseUID does, with the time in
// its own zone (Parse gives the local zone, as Java's formatter), and
// without the gene, which Baidu's layouts do not have (Layout.ParseUID adds
// it for layouts that do):
//
//	{"UID":"%d","timestamp":"yyyy-MM-dd HH:mm:ss","workerId":"%d","sequence":"%d"}
func (id ID) String() string { return id.baidu(baiduTimeLayout, "") }

// baidu returns Baidu's string form with the time formatted as format and
// tail before its closing brace.
func (id ID) baidu(format, tail string) string {
	return fmt.Sprintf(`{"UID":"%d","timestamp":"%s","workerId":"%d","sequence":"%d"%s}`,
		id.UID, id.Time.Format(format), id.WorkerID, id.Sequence, tail)
}
