package main

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/seed4d941b13/uidgen/bench/internal/resultsmd"
)

// The plot: one group of bars per implementation, one bar per goroutine
// count, IDs/s on a log scale since the implementations span five decades.
const (
	plotW, plotH = 1100, 580
	marginLeft   = 70
	marginRight  = 20
	marginTop    = 60
	marginBottom = 70
)

var (
	white = color.RGBA{255, 255, 255, 255}
	black = color.RGBA{30, 30, 30, 255}
	grey  = color.RGBA{215, 215, 215, 255}
	// Colour-blind-safe (Okabe-Ito) fills for the goroutine counts.
	barColours = []color.RGBA{{0, 114, 178, 255}, {230, 159, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255}}
)

// canvas is an RGBA image with the few drawing operations the plot needs.
type canvas struct{ img *image.RGBA }

func (c canvas) rect(x0, y0, x1, y1 int, col color.Color) {
	draw.Draw(c.img, image.Rect(x0, y0, x1, y1), image.NewUniform(col), image.Point{}, draw.Src)
}

// text draws s with its baseline at y, starting at x, or centred on x when
// centre is set.
func (c canvas) text(x, y int, s string, col color.Color, centre bool) {
	d := font.Drawer{Dst: c.img, Src: image.NewUniform(col), Face: basicfont.Face7x13}
	if centre {
		x -= d.MeasureString(s).Round() / 2
	}
	d.Dot = fixed.P(x, y)
	d.DrawString(s)
}

// writePlot draws the median IDs/s of res as a grouped bar chart in PNG.
func writePlot(w io.Writer, res *results, title string) error {
	c := canvas{image.NewRGBA(image.Rect(0, 0, plotW, plotH))}
	c.rect(0, 0, plotW, plotH, white)
	c.text(plotW/2, 24, title, black, true)
	c.text(plotW/2, 42, "IDs per second, log scale (median); higher is better", black, true)

	// The decades the medians span.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, im := range res.present() {
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
	x0, x1 := marginLeft, plotW-marginRight
	y0, y1 := plotH-marginBottom, marginTop // y0 is the axis, y1 the top
	y := func(v float64) int {
		f := (math.Log10(v) - dLo) / (dHi - dLo)
		return y0 - int(math.Round(f*float64(y0-y1)))
	}
	for d := dLo; d <= dHi; d++ {
		yy := y(math.Pow(10, d))
		label := decade(int(d))
		c.rect(x0, yy, x1, yy+1, grey)
		c.text(x0-8-7*len(label), yy+4, label, black, false)
	}
	c.rect(x0, y1, x0+1, y0+1, black)
	c.rect(x0, y0, x1, y0+1, black)

	groups := res.present()
	groupW := float64(x1-x0) / float64(len(groups))
	barW := int(groupW * 0.8 / float64(len(res.levels)))
	for i, im := range groups {
		gx := x0 + int(float64(i)*groupW+groupW*0.1)
		for j, g := range res.levels {
			bx := gx + j*barW
			v, ok := res.median(im.bench, g)
			failed := res.failures[im.bench][g] != nil
			if !ok && failed {
				c.text(bx+barW/2, y0-4, "fails", barColours[j%len(barColours)], true)
			}
			if !ok || v <= 0 {
				continue
			}
			by := y(v)
			label := resultsmd.SI(v)
			if failed {
				label += "*" // some runs failed: see RESULTS.md
			}
			c.rect(bx+1, by, bx+barW-1, y0, barColours[j%len(barColours)])
			// Every other label a line higher, so neighbours of one height
			// do not overwrite each other.
			c.text(bx+barW/2, by-4-13*(j%2), label, black, true)
		}
		c.text(x0+int((float64(i)+0.5)*groupW), y0+18, im.label, black, true)
	}

	// The legend, along the bottom.
	lx := x0
	for j, g := range res.levels {
		label := fmt.Sprintf("%d goroutine%s", g, plural(g))
		c.rect(lx, plotH-30, lx+12, plotH-18, barColours[j%len(barColours)])
		c.text(lx+18, plotH-19, label, black, false)
		lx += 18 + 7*len(label) + 30
	}
	if len(res.failures) > 0 {
		c.text(lx, plotH-19, "* or fails: some runs stopped at an error (RESULTS.md says which)", black, false)
	}
	return png.Encode(w, c.img)
}

// decade names 10^d for an axis: 1, 10, 100, 1k, 10k, ... 100G.
func decade(d int) string {
	suffixes := []string{"", "k", "M", "G"}
	return "1" + strings.Repeat("0", d%3) + suffixes[min(d/3, len(suffixes)-1)]
}
