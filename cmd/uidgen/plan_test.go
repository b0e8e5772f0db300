package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// baidusLayout is Baidu's README layout with a fresh epoch, planned from a
// fixed day so the dates are the same on every run.
var baidusLayout = []string{"plan", "-time-bits", "29", "-worker-bits", "21", "-seq-bits", "13",
	"-epoch", "2026-01-01", "-from", "2026-07-01"}

func TestPlanJSON(t *testing.T) {
	code, out, stderr := runCLI(t, append(baidusLayout, "-qps", "100000", "-restarts-per-day", "500", "-json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var p map[string]any
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	want := map[string]any{
		"geneBits": 0.0, "usedBits": 63.0, "timeBits": 29.0, "workerBits": 21.0, "seqBits": 13.0,
		"layout": "1+29+21+13 bits (sign+time+worker+sequence)",
		"epoch":  "2026-01-01T00:00:00Z", "from": "2026-07-01T00:00:00Z",
		"idsPerSecond": 8192.0,
		// 2^29 s = 17.01 years, from 2026-01-01 00:00:00.
		"timeSpanYears": 17.01, "runsOut": "2043-01-05T18:48:32Z", "yearsLeft": 16.52,
		// 100,000 / 8,192 = 12.2 seconds of ID time per second; the 16.52
		// years left go 12.2 times as fast.
		"qps": 100000.0, "borrowRate": 12.21, "cachedRunsOut": "2027-11-07T04:56:07Z", "cachedYearsLeft": 1.35,
		// 2^21-1 starts at 500 a day, in 365.25-day years.
		"workerIds": 2097151.0, "restartsPerDay": 500.0, "restartYears": 11.48,
		"peakWorkers": 0.0, "crashesPerHour": 0.0, "leaseHorizonSeconds": 600.0, "reservedByCrashes": 0.0,
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %v, want %v", k, p[k], v)
		}
	}
	if len(p) != len(want) {
		t.Errorf("%d fields, want %d: %s", len(p), len(want), out)
	}
}

func TestPlanText(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"borrowing", append(baidusLayout, "-qps", "100000", "-restarts-per-day", "500"), []string{
			"layout                 1+29+21+13 bits (sign+time+worker+sequence) from 2026-01-01 00:00:00 UTC\n",
			"time bits              2^29 s = 17.0 years, run out 2043-01-05 18:48:32 UTC\n",
			"  at the clock's pace  16.5 years left after 2026-07-01\n",
			"  at 100,000 IDs/s     the cached generator uses 12.21 s of ID time a second: run out 2027-11-07 04:56:07 UTC, 1.4 years after 2026-07-01\n",
			" that holds across restarts on a leased worker ID, which start above the last second used:" +
				" only a fresh ID, or a run that waits for the clock, starts at the clock again\n",
			"worker IDs             2,097,151 process starts (2^21-1), each taking a fresh ID\n",
			"  at 500 starts a day  they last 11.5 years\n",
		}},
		{"no load given", baidusLayout, []string{
			"give -qps: past 8,192 IDs/s the cached generator borrows future seconds\n",
			"give -restarts-per-day",
		}},
		{"load within a second's sequence", append(baidusLayout, "-qps", "8192"), []string{
			"  at 8,192 IDs/s       no borrowing: the load fits in 8,192 IDs a second\n",
		}},
		{"Baidu's own defaults, spent in 2024", []string{"plan", "-time-bits", "28", "-worker-bits", "22",
			"-seq-bits", "13", "-epoch", "2016-05-20", "-from", "2026-07-01", "-qps", "1e6"}, []string{
			"run out 2024-11-20 21:24:16 UTC\n",
			"  at 2026-07-01  already run out: no IDs can be made with this layout and epoch\n",
		}},
		{"more years than dates", []string{"plan", "-time-bits", "45", "-worker-bits", "5", "-seq-bits", "13"}, []string{
			"run out beyond year 9999\n",
		}},
		// Leased IDs need worker bits for the processes alive at once, and
		// -fit gives the rest to the sequence.
		{"fit", []string{"plan", "-fit", "-peak-workers", "500", "-years", "30", "-epoch", "2026-01-01", "-from", "2026-07-01"}, []string{
			// 30 years is 2^29.8 s; 500 IDs need 9 bits; 63-30-9 = 24.
			"layout                 1+30+9+24 bits (sign+time+worker+sequence) from 2026-01-01 00:00:00 UTC\n",
			"  leased IDs           500 processes alive at once fit, however often they restart (-lease)\n",
		}},
		{"fit exactly", []string{"plan", "-fit", "-peak-workers", "511", "-years", "34"}, []string{"1+30+9+24 bits"}},
		{"fit one more", []string{"plan", "-fit", "-peak-workers", "512", "-years", "34.1"}, []string{"1+31+10+22 bits"}},
		// The layout the README shows for JavaScript: 53 bits, 255 live
		// processes, 68 years.
		{"fit for JavaScript", []string{"plan", "-fit", "-peak-workers", "255", "-years", "68", "-max-bits", "53"}, []string{
			"1+31+8+14 bits (sign+time+worker+sequence)",
			"every ID is below 2^53: exact as a JavaScript number\n",
		}},
		{"gene", []string{"plan", "-time-bits", "30", "-worker-bits", "10", "-seq-bits", "13", "-gene-bits", "10"}, []string{
			"1+30+10+13+10 bits (sign+time+worker+sequence+gene)",
			"NextIDFor(key) puts key % 1,024 in the low bits",
		}},
		{"too many peak workers", append(baidusLayout, "-peak-workers", "3000000"), []string{
			"3,000,000 processes alive at once need 22 worker bits (-lease)\n",
		}},
		// A crashed holder's ID stays reserved a horizon ahead while new
		// holders take other IDs: 30 crashes an hour, 10 minutes each,
		// keep 5 more IDs in use, and 510 live processes need 10 bits.
		{"crashes", []string{"plan", "-fit", "-peak-workers", "510", "-crashes-per-hour", "30", "-years", "34"}, []string{
			"1+30+10+23 bits",
			"510 processes alive at once and 5 IDs that crashes keep reserved (30 an hour, each for a 10m0s horizon) fit",
		}},
		{"crashes, a day's horizon", append(baidusLayout, "-peak-workers", "100", "-crashes-per-hour", "2.5", "-lease-horizon", "24h"), []string{
			"100 processes alive at once and 60 IDs that crashes keep reserved (2.5 an hour, each for a 24h0m0s horizon) fit",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestPlanBadCalls(t *testing.T) {
	testBadCalls(t, []badCall{
		{[]string{"plan", "-fit", "-peak-workers", "500"}, "-fit needs -peak-workers 1 or more and -years above 0, not 500 and 0"},
		{[]string{"plan", "-fit", "-years", "30", "-peak-workers", "5", "-seq-bits", "20"}, "-fit chooses the bits"},
		{[]string{"plan", "-peak-workers", "5", "-crashes-per-hour", "-1"}, "-crashes-per-hour -1: must be 0 or more"},
		{[]string{"plan", "-peak-workers", "5", "-lease-horizon", "25h"}, "-lease-horizon 25h: want 1s to 24h"},
		{[]string{"plan", "-fit", "-years", "1e12", "-peak-workers", "1000000"}, "leave no sequence bit"},
		{[]string{"plan", "-peak-workers", "-1"}, "-peak-workers -1: must be 0 or more"},
		{[]string{"plan", "-qps", "-5"}, "-qps -5: must be 0 or more"},
		{[]string{"plan", "-qps", "lots"}, `invalid value "lots" for flag -qps`},
		{[]string{"plan", "-restarts-per-day", "-1"}, "-restarts-per-day -1: must be 0 or more"},
		{[]string{"plan", "-time-bits", "31"}, "= 65: want at most 64"},
		{[]string{"plan", "-fit", "-years", "30", "-peak-workers", "5", "-max-bits", "70"}, "-max-bits 70: want 3 to 63"},
		{[]string{"plan", "-fit", "-years", "68", "-peak-workers", "255", "-max-bits", "53", "-gene-bits", "14"}, "and 14 gene bits, which leave no sequence bit of 53"},
		{[]string{"plan", "-epoch", "soon"}, `-epoch "soon" is neither`},
		{[]string{"plan", "-from", "tomorrow"}, `-from "tomorrow" is neither`},
		{[]string{"plan", "30"}, `unexpected argument "30"`},
	})
}

// badCall is a command line that must exit 2, print nothing on stdout and
// say want on stderr.
type badCall struct {
	args []string
	want string
}

func testBadCalls(t *testing.T, calls []badCall) {
	t.Helper()
	for _, c := range calls {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, out, stderr := runCLI(t, c.args...)
			if code != 2 || out != "" || !strings.Contains(stderr, c.want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, stderr, c.want)
			}
		})
	}
}
