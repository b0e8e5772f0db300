package uidgen

import "time"

// ID is a UID taken apart: what Layout.Parse returns for Go callers;
// Layout.ParseUID writes it as Baidu's string.
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
