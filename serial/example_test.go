package serial_test

import (
	"fmt"
	"time"

	"github.com/seed4d941b13/uidgen"
	"github.com/seed4d941b13/uidgen/serial"
)

// The seed article's second scheme in Twitter's layout: a business code,
// the time to the millisecond, the worker and the sequence, 28 digits that
// sort as the IDs do and read back to them.
func ExampleSnowflake() {
	l, err := uidgen.NamedLayout("twitter")
	if err != nil {
		panic(err)
	}
	f, err := serial.NewSnowflake("001{yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}{worker:4}{seq:4}", l, time.UTC)
	if err != nil {
		panic(err)
	}
	at := time.Date(2026, 11, 27, 8, 30, 0, 123e6, time.UTC)
	id := l.Bits().Allocate(l.TickOf(at), 7, 5) // as cached.Generator.NextID makes it
	s := f.Format(id)
	back, err := f.Parse(s)
	fmt.Println(id, s, back == id, err)

	_, err = serial.NewSnowflake("001{yyyy}{MM}{dd}{HH}{mm}{ss}{worker:4}{seq:4}", l, time.UTC)
	fmt.Println(err)
	// Output:
	// 2126232055304974341 0012026112708300012300070005 true <nil>
	// serial: invalid config: pattern "001{yyyy}{MM}{dd}{HH}{mm}{ss}{worker:4}{seq:4}" does not fit layout 1+41+10+12 bits (sign+time+worker+sequence) in 1ms ticks from 2010-11-04 01:42:54.657 UTC: no {SSS}: its times need {yyyy}{MM}{dd}{HH}{mm}{ss}{SSS}
}
