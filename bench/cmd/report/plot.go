package main

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/seed4d941b13/uidgen/bench/internal/resultsmd"
)

// The plot: one group of bars per implementation, one bar per goroutine
// count, IDs/s on a log scale since the implementations span five decades.
// plotW and plotH are pixels at plotDPI.
const (
	plotW, plotH = 1100, 580
	plotDPI      = 96
)

// Colour-blind-safe (Okabe-Ito) fills for the goroutine counts.
var barColours = []color.RGBA{{0, 114, 178, 255}, {230, 159, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255}}

// writePlot draws the median IDs/s of res as a grouped bar chart in PNG.
func writePlot(w io.Writer, res *results, title string) error {
	groups := res.present()
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, im := range groups {
		for _, g := range res.levels {
			if v, ok := res.median(im.bench, g); ok && v > 0 {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		return fmt.Errorf("no IDs/s to plot")
	}
	dLo, dHi := math.Floor(math.Log10(lo)), math.Ceil(math.Log10(hi))
	if dHi == dLo {
		dHi++
	}

	p := plot.New()
	p.Title.Text = title + "\nIDs per second, log scale (median); higher is better"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = decadeTicks{}
	p.Y.Label.Text = "IDs/s"
	p.Legend.Top = true
	p.Legend.Left = true
	labels := make([]string, len(groups))
	for i, im := range groups {
		labels[i] = im.label
	}
	p.NominalX(labels...)
	p.Add(plotterGrid{})

	groupW := vg.Points(float64(plotW) * 72 / plotDPI * 0.8 / float64(len(groups)))
	barW := groupW / vg.Length(len(res.levels))
	for j, g := range res.levels {
		b := &logBars{
			values: make([]float64, len(groups)),
			labels: make([]string, len(groups)),
			offset: -groupW/2 + barW*vg.Length(j) + barW/2,
			width:  barW,
			color:  barColours[j%len(barColours)],
			raise:  vg.Points(11 * float64(j%2)), // neighbours of one height do not overwrite each other
		}
		for i, im := range groups {
			v, ok := res.median(im.bench, g)
			failed := res.failures[im.bench][g] != nil
			switch {
			case ok && v > 0:
				b.values[i], b.labels[i] = v, resultsmd.SI(v)
				if failed {
					b.labels[i] += "*" // some runs failed: see RESULTS.md
				}
			case failed:
				b.labels[i] = "fails"
			}
		}
		p.Add(b)
		p.Legend.Add(fmt.Sprintf("%d goroutine%s", g, plural(g)), b)
	}
	if len(res.failures) > 0 {
		p.X.Label.Text = "* or fails: some runs stopped at an error (RESULTS.md says which)"
	}
	p.Y.Min, p.Y.Max = math.Pow(10, dLo), math.Pow(10, dHi)

	c := vgimg.NewWith(vgimg.UseWH(vg.Points(plotW*72/plotDPI), vg.Points(plotH*72/plotDPI)), vgimg.UseDPI(plotDPI))
	p.Draw(draw.New(c))
	_, err := vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// logBars is the bars of one goroutine count, one per implementation. It
// draws each bar up from the foot of the axis: gonum's BarChart draws from
// zero, which a log scale does not have.
type logBars struct {
	values        []float64 // IDs/s by implementation; 0 draws no bar
	labels        []string  // written above each bar, or at the foot where there is none
	offset, width vg.Length // of each bar, from its implementation's tick
	raise         vg.Length // how far above the bar its label sits
	color         color.Color
}

// Plot implements plot.Plotter.
func (b *logBars) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	foot := trY(p.Y.Min)
	style := p.X.Tick.Label
	style.XAlign, style.YAlign = text.XCenter, text.YBottom
	for i, v := range b.values {
		x := trX(float64(i)) + b.offset
		top := foot
		if v > 0 {
			top = trY(v)
			c.FillPolygon(b.color, c.ClipPolygonY([]vg.Point{
				{X: x - b.width/2, Y: foot}, {X: x - b.width/2, Y: top},
				{X: x + b.width/2, Y: top}, {X: x + b.width/2, Y: foot},
			}))
		}
		if b.labels[i] != "" {
			c.FillText(style, vg.Point{X: x, Y: top + vg.Points(2) + b.raise}, b.labels[i])
		}
	}
}

// DataRange implements plot.DataRanger: the implementations' ticks, and
// the IDs/s drawn.
func (b *logBars) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, v := range b.values {
		if v > 0 {
			ymin, ymax = min(ymin, v), max(ymax, v)
		}
	}
	return -0.5, float64(len(b.values)) - 0.5, ymin, ymax
}

// Thumbnail implements plot.Thumbnailer, for the legend.
func (b *logBars) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(b.color, []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}})
}

// plotterGrid draws a light line at each decade behind the bars.
type plotterGrid struct{}

// Plot implements plot.Plotter.
func (plotterGrid) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	line := draw.LineStyle{Color: color.Gray{Y: 215}, Width: vg.Points(0.5)}
	for _, t := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		y := trY(t.Value)
		c.StrokeLine2(line, c.Min.X, y, c.Max.X, y)
	}
}

// decadeTicks marks each power of ten, named as decade names it.
type decadeTicks struct{}

// Ticks implements plot.Ticker.
func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	var ticks []plot.Tick
	for d := math.Floor(math.Log10(lo)); d <= math.Ceil(math.Log10(hi)); d++ {
		ticks = append(ticks, plot.Tick{Value: math.Pow(10, d), Label: decade(int(d))})
	}
	return ticks
}

// decade names 10^d for an axis: 1, 10, 100, 1k, 10k, ... 100G.
func decade(d int) string {
	suffixes := []string{"", "k", "M", "G"}
	return "1" + strings.Repeat("0", d%3) + suffixes[min(d/3, len(suffixes)-1)]
}
