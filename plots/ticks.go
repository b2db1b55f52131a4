package plots

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// roundTicks is the axes' plot.Ticker: major ticks at the multiples of a round step, 1, 2
// or 5 × 10^k, so that 0 is a tick whenever the axis spans it; minor ticks between them;
// and labels with just the decimals the step needs ("0", "0.5", "1", never "0.50" or
// "2.50").
type roundTicks struct {
	// Most is the largest number of major ticks; below 2 (0, the default) means 8; an axis short for
	// them gets fewer (see thin).
	Most int
}

// Ticks implements plot.Ticker.
func (t roundTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		if math.IsNaN(lo) || math.IsInf(lo, 0) {
			return nil
		}
		return []plot.Tick{{Value: lo, Label: strconv.FormatFloat(lo, 'g', 4, 64)}}
	}
	most := t.most()
	// The smallest round step that gives at most most major ticks.
	step, mantissa, exp := roundStep((hi - lo) / float64(most))
	for math.Floor(hi/step+1e-9)-math.Ceil(lo/step-1e-9)+1 > float64(most) {
		step, mantissa, exp = roundStep(step * 1.01)
	}
	minors := 5 // minor ticks per step: at 0.2 (step 1), 0.5 (step 2) or 1 (step 5) × 10^k
	if mantissa == 2 {
		minors = 4
	}
	var ticks []plot.Tick
	// Ticks are integer multiples of the step (of a minor step), so 0 is exactly 0.
	first, last := math.Ceil(lo/step*float64(minors)-1e-9), math.Floor(hi/step*float64(minors)+1e-9)
	for i := first; i <= last; i++ {
		v := i * step / float64(minors)
		if math.Mod(i, float64(minors)) == 0 {
			v = (i / float64(minors)) * step
			ticks = append(ticks, plot.Tick{Value: v, Label: tickLabel(v, exp)})
		} else {
			ticks = append(ticks, plot.Tick{Value: v})
		}
	}
	return ticks
}

// most is the largest number of major ticks.
func (t roundTicks) most() int {
	if t.Most < 2 {
		return 8
	}
	return t.Most
}

// roundStep is the smallest step of 1, 2 or 5 × 10^exp not below raw, with its mantissa.
func roundStep(raw float64) (step float64, mantissa, exp int) {
	exp = int(math.Floor(math.Log10(raw)))
	base := math.Pow(10, float64(exp))
	for _, m := range []int{1, 2, 5, 10} {
		if float64(m)*base >= raw*(1-1e-9) {
			if m == 10 {
				return 10 * base, 1, exp + 1
			}
			return float64(m) * base, m, exp
		}
	}
	panic("unreachable")
}

// tickLabel formats a tick's value, a multiple of a step of 10^exp, with just the digits
// that step needs and no trailing zeros: in plain notation while that stays short ("0",
// "0.5", "1", "0.0001", "-1200"), else in scientific notation ("2.5e-09", "1.2e+07").
func tickLabel(v float64, exp int) string {
	if v == 0 {
		return "0"
	}
	if exp < -6 || math.Abs(v) >= 1e7 {
		digits := max(int(math.Floor(math.Log10(math.Abs(v))))-exp, 0)
		s := strconv.FormatFloat(v, 'e', digits, 64)
		mant, pow, _ := strings.Cut(s, "e")
		return trimZeros(mant) + "e" + pow
	}
	return trimZeros(strconv.FormatFloat(v, 'f', max(-exp, 0), 64))
}

// trimZeros drops the trailing zeros of a number's decimals, and its point with them.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}
