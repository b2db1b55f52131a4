package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/quce-go/quce/data"
)

// Legend explains the Φ− and Φ+ columns of the text report's tables, so that nobody reads
// them as an interval.
const Legend = "Φ− and Φ+: attribution of moving the counterfactual by −ε and +ε (ε: the VAE's reconstruction gap), i.e. its uncertainty; not an interval around the attribution"

// DetourMark marks an attribution of a column that ends unchanged (Instance.Detour);
// DetourNote says why it has one.
const (
	DetourMark = "*"
	DetourNote = "unchanged at the end: the path moved this column and back, so its attribution is what that detour contributed, not a change to make"
)

// maxChanges is the most changed columns listed on an instance's line.
const maxChanges = 8

// WriteText writes the text report's part for each instance: what was predicted and
// reached, how the search went, the changed columns, and a table of the top columns by
// |attribution| (none for top 0).
func WriteText(w io.Writer, ins []*Instance, top int) {
	for _, in := range ins {
		in.writeText(w, top)
	}
}

func (in *Instance) writeText(w io.Writer, top int) {
	if in.AlreadyTarget {
		fmt.Fprintf(w, "\n%s: %s\n", in.Name(), in.alreadyText())
		return
	}
	if in.failed() {
		// A failed row has no counterfactual and no attribution to show: only why.
		fmt.Fprintf(w, "\n%s: predicted %q, target %q: F(target) %s at x; FAILED: %s\n",
			in.Name(), in.PredictedClassName, in.TargetClassName, probText(float64(in.ProbTargetStart)), in.Failure)
		return
	}
	status := "valid"
	if !in.Valid {
		status = "NOT valid"
	}
	fmt.Fprintf(w, "\n%s: predicted %q, target %q: F(target) %.4f -> %.4f, %s (%d steps, completeness gap %.1e)\n",
		in.Name(), in.PredictedClassName, in.TargetClassName, in.ProbTargetStart, in.ProbTargetEnd, status, in.PathSteps, in.CompletenessGap)
	if in.FailedPaths > 0 {
		fmt.Fprintf(w, "  %d of %d paths failed and are left out of the expected attribution (the first: %s)\n", in.FailedPaths, in.Paths, in.FirstPathFailure)
	}
	if a := in.Auto; a != nil {
		c := a.Candidates[a.Chosen]
		plausible := fmt.Sprintf("L_ε %.3g within the bound %.3g", c.Uncertainty, a.Bound)
		if !a.Plausible {
			plausible = fmt.Sprintf("no valid candidate within the bound %.3g, so the valid one with the lowest L_ε (%.3g)", a.Bound, c.Uncertainty)
		}
		pulled := ""
		if in.PulledBack > 0 {
			pulled = fmt.Sprintf("; pulled back %.0f%% of the way towards x", 100*in.PulledBack)
		}
		fmt.Fprintf(w, "  automatic λ: λ2 %.4g, λ3 %.4g, candidate %d of %d, refinement round %d, %d steps (L1 %.3g; %s%s)\n", c.Lambda2, c.Lambda3, a.Chosen+1, len(a.Candidates), c.Round, c.Steps, c.Distance, plausible, pulled)
	}
	if in.StalledAtStep > 0 {
		fmt.Fprintf(w, "  stalled at step %d (F(target) not rising, the model's gradient vanished), so it walked on without the proximity term (λ2 = 0) and stopped at F(target) ≥ threshold + 0.05\n", in.StalledAtStep)
	}
	if note := in.projectionNote(); note != "" {
		fmt.Fprintf(w, "  %s\n", note)
	}
	if note := in.UnseenNote(); note != "" {
		fmt.Fprintf(w, "  %s\n", note)
	}
	cols, xo, xc := in.Columns, in.Inputs.XOriginal, in.Inputs.CounterfactualOriginal
	changed := marked(in.Changed)
	count := fmt.Sprintf("%d of %d columns changed", len(changed), len(cols))
	if in.ResetFeatures != nil {
		count += fmt.Sprintf(" (%d before -sparse reset %d)", len(changed)+len(in.ResetFeatures), len(in.ResetFeatures))
	}
	fmt.Fprintf(w, "  %s: %s\n", count, changes(cols, changed, xo, xc, maxChanges))
	in.writeOptions(w)
	if top == 0 {
		return
	}
	marks := false
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  column\toriginal\t-> counterfactual\tattribution\tΦ−\tΦ+")
	for _, ci := range in.Top(top) {
		c, mark := cols[ci], ""
		if in.Detour[ci] {
			mark, marks = DetourMark, true
		}
		fmt.Fprintf(tw, "  %s\t%s\t-> %s\t%+.4f%s\t%+.4f\t%+.4f\n", c.Name, columnText(c, xo),
			columnText(c, xc), in.Attribution[ci], mark, in.AttributionMinus[ci], in.AttributionPlus[ci])
	}
	tw.Flush()
	if marks {
		fmt.Fprintf(w, "  %s %s\n", DetourMark, DetourNote)
	}
}

// writeOptions writes a line for each of the instance's other counterfactuals.
func (in *Instance) writeOptions(w io.Writer) {
	for _, o := range in.Options {
		fmt.Fprintf(w, "  counterfactual %d of %d, holding %s at the row's values: F(target) %.4f, completeness gap %.1e, %d of %d columns changed: %s\n",
			o.Option, len(in.Options)+1, strings.Join(o.Held, ", "), o.ProbTargetEnd, o.CompletenessGap, len(marked(o.Changed)), len(in.Columns), o.Changes())
	}
}

// Changes lists the changed columns with their values before and after ("age: 40 → 45"),
// the first few of them.
func (in *Instance) Changes() string {
	return changes(in.Columns, marked(in.Changed), in.Inputs.XOriginal, in.Inputs.CounterfactualOriginal, maxChanges)
}

// alreadyText says that an instance is already predicted as its target class, so nothing was
// searched (quce.Explanation.AlreadyTarget).
func (in *Instance) alreadyText() string {
	text := fmt.Sprintf("already predicted %q (F(%s) %.4f): nothing to change, so no search ran", in.TargetClassName, in.TargetClassName, in.ProbTargetStart)
	if !in.Valid {
		text += "; F is below the threshold that a counterfactual must reach, so it is NOT valid"
	}
	return text
}

// projectionNote says what rounding the search's end to the data's values did, or "" when
// it changed nothing.
func (in *Instance) projectionNote() string {
	if !in.Projected {
		return ""
	}
	note := fmt.Sprintf("the search ended at F(target) %.4f with relaxed values (fractions of categories or integers), then was rounded to the data's values", in.RelaxedProbTargetEnd)
	if len(in.RepairColumns) > 0 {
		note += fmt.Sprintf(", then made %d one-column moves towards validity with the margin or a combination of categories the training rows hold (%s)", len(in.RepairColumns), strings.Join(in.RepairColumns, ", "))
	}
	return note
}

// probText is a probability as printed: four decimals, or "n/a" when the model gave no
// finite value.
func probText(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return fmt.Sprintf("%.4f", v)
}

// columnText is a column's value in the row x (the data's units) as printed: a continuous
// column with 4 significant digits, every other in the data's own terms (a category's name,
// an integer, an ordinal level).
func columnText(c data.Column, x []float64) string {
	if c.Type == data.Continuous {
		return fmt.Sprintf("%.4g", x[c.Start])
	}
	return c.Format(x)
}

// changes lists changed columns as "name: before → after", at most most of them.
func changes(cols []data.Column, idx []int, x, xc []float64, most int) string {
	parts := make([]string, 0, min(len(idx), most)+1)
	for i, ci := range idx {
		if i == most {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(idx)-most))
			break
		}
		c := cols[ci]
		parts = append(parts, fmt.Sprintf("%s: %s → %s", c.Name, columnText(c, x), columnText(c, xc)))
	}
	return strings.Join(parts, ", ")
}

// UnseenNote warns, for a counterfactual holding pairs of category values that no training
// row holds together (UnseenCombination), that it may be no row that could exist; "" when
// every pair was seen.
func (in *Instance) UnseenNote() string {
	if len(in.UnseenCombination) == 0 {
		return ""
	}
	return "WARNING: no training row holds these category values together: " + strings.Join(in.UnseenCombination, ", ") +
		"; the search found no valid counterfactual without them, so this one may be no row that could exist"
}
