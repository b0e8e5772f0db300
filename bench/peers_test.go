package bench

import (
	"testing"

	"github.com/bwmarrin/snowflake"
	"github.com/sony/sonyflake/v2"
)

// BenchmarkSnowflake is github.com/bwmarrin/snowflake with its defaults: 41
// bits of milliseconds, 10 of node, 12 of step, so at most 4,096 IDs per
// millisecond (4,096,000/s); past that Generate spins to the next
// millisecond.
func BenchmarkSnowflake(b *testing.B) {
	benchLevels(b, func(b *testing.B) func() nextFunc {
		n, err := snowflake.NewNode(1)
		if err != nil {
			b.Fatal(err)
		}
		return shared(func() (int64, error) { return n.Generate().Int64(), nil })
	})
}

// BenchmarkSonyflake is github.com/sony/sonyflake/v2 with its defaults: 10 ms
// time units and 8 sequence bits, so at most 256 IDs per 10 ms (25,600/s);
// past that NextID sleeps to the next unit.
func BenchmarkSonyflake(b *testing.B) {
	benchLevels(b, func(b *testing.B) func() nextFunc {
		sf, err := sonyflake.New(sonyflake.Settings{MachineID: func() (int, error) { return 1, nil }})
		if err != nil {
			b.Fatal(err)
		}
		return shared(sf.NextID)
	})
}
