package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/quce-go/quce/quce"
)

// PaperWBC holds the paper's own W-BC figures (spec/quce-paper.tex: Table 2 path
// uncertainty, Table 3 counterfactual L_ε, Table 4 counterfactual reconstruction, and the
// supplement's deletion table), in Report.Metrics' shape. The paper's deletion table has no
// split; it is under the key "all". The paper's "DiCE" (the DiCE library, strategy not
// stated) is filed under dice-random. They are shown for reference only: the authors'
// notebook measured uncertainty with an untrained VAE (docs/METHOD.md), so our figures are
// not expected to match, and nothing here is tuned to them.
var PaperWBC = map[Method]map[string]map[string]float64{
	QUCE: {
		Train: {PathUncertaintyMean: 0.82, PathUncertaintyStd: 0.16, CFUncertainty: 0.93, CFReconError: 0.73},
		Test:  {PathUncertaintyMean: 0.83, PathUncertaintyStd: 0.29, CFUncertainty: 1.08, CFReconError: 0.76},
		"all": {Deletion: 0.632},
	},
	IG: {
		Train: {PathUncertaintyMean: 0.84, PathUncertaintyStd: 0.20},
		Test:  {PathUncertaintyMean: 0.85, PathUncertaintyStd: 0.33},
	},
	AGI: {
		Train: {PathUncertaintyMean: 0.93, PathUncertaintyStd: 0.36, CFUncertainty: 1.22, CFReconError: 0.80},
		Test:  {PathUncertaintyMean: 0.96, PathUncertaintyStd: 0.55, CFUncertainty: 1.41, CFReconError: 0.81},
		"all": {Deletion: 0.648},
	},
	DiceRandom: {
		Train: {CFUncertainty: 3.63, CFReconError: 1.04},
		Test:  {CFUncertainty: 3.00, CFReconError: 1.04},
		"all": {Deletion: 0.637},
	},
}

// IsWBC reports whether a data set name is the embedded W-BC data, the only one the
// paper's figures are shown for.
func IsWBC(name string) bool { return strings.HasPrefix(strings.ToLower(name), "wbc") }

// table describes one printed table.
type table struct {
	key, title, paper string
	format            string
	paperCols         []string // paper splits shown, when the data set is W-BC
	matched           string   // the key of the same metric on the matched instances, shown beside it
}

var tables = []table{
	{PathUncertaintyMean, "Path uncertainty: paper-form L_ε along the path, mean ± std over instances; lower is better", "Table 2", "%.3f", []string{Train, Test}, ""},
	{CFUncertainty, "Counterfactual uncertainty: paper-form L_ε(x_c) (\"VAE loss\"); lower is better", "Table 3", "%.3f", []string{Train, Test}, ""},
	{CFReconError, "Counterfactual reconstruction error: mean over features of |x_c − dec(μ(x_c))|; lower is better", "Table 4", "%.3f", []string{Train, Test}, ""},
	{Deletion, "Deletion score: mean F(original class) as features go to the baseline, largest attribution first; lower is better", "deletion table", "%.3f", []string{"all"}, ""},
	{Insertion, "Insertion score: mean F(original class) as features come back from the baseline; higher is better", "", "%.3f", nil, ""},
	{Validity, "Validity rate: share of instances with F(τ|x_c) ≥ ϑ", "", "%.2f", nil, ""},
	{ProximityL1, "Proximity L1: ‖x_c − x‖₁ (standardised units); lower is closer", "", "%.3f", nil, ""},
	{ProximityL1Matched, "Proximity L1, matched: on the instances every method with counterfactuals made valid (see Notes); lower is closer", "", "%.3f", nil, ""},
	{CFUncertaintyMatched, "Counterfactual uncertainty, matched: paper-form L_ε(x_c) on the same instances; lower is better", "", "%.3f", nil, ""},
	{ProximityL2, "Proximity L2: ‖x_c − x‖₂ (standardised units); lower is closer", "", "%.3f", nil, ""},
	{Sparsity, "Sparsity: columns changed (continuous ones by more than the tolerance; a categorical column counts once); lower is sparser", "", "%.1f", nil, ""},
	{CompletenessGap, "Completeness gap: mean |Σ_j Φ_j − (F(τ|x_c) − F(τ|x))|; lower is better", "", "%.2e", nil, ""},
	{SecondsPerInstance, "Seconds per instance: wall time of the method's run / instances", "", "%.4f", nil, ""},
	{PathUncertaintyTrainedMean, "Path uncertainty, trained form (negative ELBO the QUCE objective minimises), mean ± std", "", "%.3f", nil, ""},
	{CFUncertaintyTrained, "Counterfactual uncertainty, trained form (negative ELBO)", "", "%.3f", nil, ""},
	{YNN, "yNN: share of the counterfactual's 5 nearest training rows that the model predicts as τ (CARLA), over valid counterfactuals (matched instances in brackets); higher is better", "", "%.3f", nil, YNNMatched},
	{Redundancy, "Redundancy: changed columns that alone could be set back with x_c still valid (CARLA), valid counterfactuals (matched in brackets); lower is better", "", "%.2f", nil, RedundancyMatched},
	{DistanceL1MinMax, "Distance ℓ1, min-max: ‖x_c − x‖₁ with inputs scaled by the training split's range (CARLA), valid counterfactuals (matched in brackets); lower is closer", "", "%.3f", nil, DistanceL1MinMaxMatched},
	{DistanceL2MinMax, "Distance ℓ2, min-max: ‖x_c − x‖₂ in the same units (matched in brackets); lower is closer", "", "%.3f", nil, DistanceL2MinMaxMatched},
	{DistanceLinfMinMax, "Distance ℓ∞, min-max: the largest change of one input in the same units (matched in brackets); lower is closer", "", "%.3f", nil, DistanceLinfMinMaxMatched},
	{ConstraintViolations, "Constraint violations: counterfactuals, valid or not, that break a constraint the user set (frozen, increase, decrease, bounds); 0 is right", "", "%.0f", nil, ""},
}

// severalTables are the tables of several counterfactuals per row, printed only when the
// report asks for them (quce.Config.Counterfactuals above 1; see tablesFor).
var severalTables = []table{
	{CounterfactualsPerRow, "Counterfactuals per row: distinct valid counterfactuals of each instance (0 for a failure; agi gives one), mean over instances; higher offers more options", "", "%.2f", nil, ""},
	{TwoOrMore, "Rows with two or more: share of instances with at least two distinct valid counterfactuals", "", "%.2f", nil, ""},
	{DiversityContinuous, "Diversity, continuous columns (DiCE): mean over pairs of a row's counterfactuals of the mean |a − b| / MAD over continuous and integer columns (MAD of the training split), rows with two or more; higher is more diverse", "", "%.3f", nil, ""},
	{DiversityCategorical, "Diversity, categorical columns (DiCE): mean over pairs of the share of categorical, binary and ordinal columns that differ, rows with two or more; higher is more diverse", "", "%.3f", nil, ""},
	{CountDiversity, "Count-diversity (DiCE): share of (pair, column) cells that differ over every column, rows with two or more; higher is more diverse", "", "%.3f", nil, ""},
	{OptionsDistanceL1MinMax, "Options' distance ℓ1, min-max: mean over a row's counterfactuals of their distance_l1_minmax to x, valid rows; lower is closer", "", "%.3f", nil, ""},
}

// tablesFor are the tables of a report that asks for k counterfactuals per row: those of
// several only when k > 1, so that a report of one is as it always was.
func tablesFor(k int) []table {
	if k > 1 {
		return append(slices.Clip(tables), severalTables...)
	}
	return tables
}

// WriteTables prints one table per metric, methods as rows and splits as columns, with the
// paper's W-BC figures beside ours (marked "paper") when the data set is W-BC, then notes:
// AGI's flip counts, every failure, and the definitions used.
func (r *Report) WriteTables(w io.Writer) error {
	showPaper := IsWBC(r.Dataset)
	b := &strings.Builder{}
	fmt.Fprintf(b, "QUCE evaluation on %s: %s per split (%s), seed %d, %s\n", r.Dataset, countsLine(r), strings.Join(r.Splits, ", "), r.Settings.Seed, r.Backend)
	for _, t := range tablesFor(r.Settings.Config.Counterfactuals) {
		fmt.Fprintln(b)
		title := t.title
		if t.paper != "" {
			title += " [paper " + t.paper + "]"
		}
		fmt.Fprintln(b, title)
		tw := tabwriter.NewWriter(b, 0, 0, 3, ' ', 0)
		hdr := []string{"method"}
		hdr = append(hdr, r.Splits...)
		paperCols := showPaper && len(t.paperCols) > 0
		if paperCols {
			for _, s := range t.paperCols {
				if s == "all" {
					hdr = append(hdr, "paper")
				} else {
					hdr = append(hdr, "paper "+s)
				}
			}
		}
		fmt.Fprintln(tw, strings.Join(hdr, "\t"))
		for _, m := range r.Methods {
			row := []string{string(m)}
			for _, s := range r.Splits {
				row = append(row, r.cell(m, s, t))
			}
			if paperCols {
				for _, s := range t.paperCols {
					row = append(row, paperCell(m, s, t))
				}
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		tw.Flush()
	}
	fmt.Fprintln(b)
	r.writeNotes(b, showPaper)
	_, err := io.WriteString(w, b.String())
	return err
}

func countsLine(r *Report) string {
	var parts []string
	for _, s := range r.Splits {
		parts = append(parts, fmt.Sprintf("%d %s", len(r.Rows[s]), s))
	}
	return strings.Join(parts, " + ") + " instances"
}

// cell formats one method's metric on one split: "—" where the metric does not apply,
// "n/a" where it applies but no instance could be measured.
func (r *Report) cell(m Method, split string, t table) string {
	if !Applies(m, t.key) {
		return "—"
	}
	v, ok := r.Metrics[m][split][t.key]
	if !ok {
		return "n/a"
	}
	s := fmt.Sprintf(t.format, v)
	switch t.key {
	case PathUncertaintyMean:
		s += fmt.Sprintf(" ± "+t.format, r.Metrics[m][split][PathUncertaintyStd])
	case PathUncertaintyTrainedMean:
		s += fmt.Sprintf(" ± "+t.format, r.Metrics[m][split][PathUncertaintyTrainedStd])
	case Validity:
		c := r.Counts[m][split]
		s += fmt.Sprintf(" (%d/%d)", c.Valid, c.Instances)
	}
	if mv, ok := r.Metrics[m][split][t.matched]; ok && t.matched != "" {
		s += fmt.Sprintf(" ("+t.format+")", mv)
	}
	return s
}

func paperCell(m Method, split string, t table) string {
	v, ok := PaperWBC[m][split][t.key]
	if !ok {
		return ""
	}
	if t.key == PathUncertaintyMean {
		return fmt.Sprintf("%.2f ± %.2f", v, PaperWBC[m][split][PathUncertaintyStd])
	}
	if t.key == Deletion {
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// maxListed is how many failures per method and split the notes list (the JSON has all).
const maxListed = 5

func (r *Report) writeNotes(b *strings.Builder, showPaper bool) {
	fmt.Fprintln(b, "Notes")
	if r.AlreadyTarget != nil {
		var parts []string
		for _, s := range r.Splits {
			parts = append(parts, fmt.Sprintf("%s %d", s, r.AlreadyTarget[s]))
		}
		which := fmt.Sprintf("the rows evaluated are the first %d of each split's seeded order that need recourse", r.N)
		if r.Settings.Rows != nil {
			which = "of the rows named"
		}
		fmt.Fprintf(b, "- Skipped, as the model already predicts the target class for them, so there is nothing to change (%s): %s\n", which, strings.Join(parts, ", "))
	}
	if len(r.Applied) > 0 {
		fmt.Fprintf(b, "- Settings that differ from the defaults: %s.\n", strings.Join(r.Applied, "; "))
	}
	if r.AGIFlipped != nil {
		var parts []string
		for _, s := range r.Splits {
			parts = append(parts, fmt.Sprintf("%s %d/%d", s, r.AGIFlipped[s], len(r.Rows[s])))
		}
		fmt.Fprintf(b, "- AGI runs that reached the other class (η %v, at most %d steps): %s\n", r.Settings.AGI.Eta, r.Settings.AGI.MaxSteps, strings.Join(parts, ", "))
	}
	if r.Matched != nil {
		var parts []string
		for _, s := range r.Splits {
			parts = append(parts, fmt.Sprintf("%s %d of %d", s, r.Matched[s], len(r.Rows[s])))
		}
		fmt.Fprintf(b, "- Matched: the instances every method with counterfactuals made valid, where the matched tables compare them (the plain ones average each method over its own valid counterfactuals, so a method that fails the hardest instances looks closer): %s\n", strings.Join(parts, ", "))
	}
	listed := false
	for _, m := range r.Methods {
		for _, s := range r.Splits {
			var failed []InstanceResult
			for _, in := range r.Instances[m][s] {
				if in.Failure != "" {
					failed = append(failed, in)
				}
			}
			if len(failed) == 0 {
				continue
			}
			if !listed {
				fmt.Fprintln(b, "- Failures (every one is in the JSON's instances):")
				listed = true
			}
			fmt.Fprintf(b, "  %s, %s: %d of %d\n", m, s, len(failed), len(r.Instances[m][s]))
			for i, in := range failed {
				if i == maxListed {
					fmt.Fprintf(b, "    ... and %d more\n", len(failed)-maxListed)
					break
				}
				fmt.Fprintf(b, "    row %d: %s\n", in.Row, in.Failure)
			}
		}
	}
	for _, m := range r.Methods {
		for _, s := range r.Splits {
			for _, in := range r.Instances[m][s] {
				for _, w := range in.Warnings {
					fmt.Fprintf(b, "- Warning: %s, %s, row %d: %s\n", m, s, in.Row, w)
				}
			}
		}
	}
	if !listed {
		fmt.Fprintln(b, "- No failures: every method gave a valid result for every instance.")
	}
	st := r.Settings
	over := "valid counterfactuals only"
	if st.AllCounterfactuals {
		over = "every counterfactual, valid or not"
	}
	fmt.Fprintf(b, "- Path uncertainty: L_ε averaged over %d interpolation points t = k/%d (k = 1..%d) along each path, parametrised by %s; paper form (1/J)Σ(x−x̂)² + KL with z = μ(x). ig is the straight line to QUCE's x_c with %d points.\n",
		st.Interp, st.Interp, st.Interp, map[string]string{"step": "step index (evenly per segment)", "arc-length": "arc length"}[st.Interpolation], st.IGPoints)
	fmt.Fprintf(b, "- Counterfactual metrics average over %s; validity over all instances; path metrics over instances whose path was measured. Units are standardised features. Sparsity tolerance %g (continuous columns).\n", over, st.SparsityTol)
	if c := st.Constraints; !c.Empty() {
		fmt.Fprintf(b, "- Constraints on every method's instances: %s.\n", c)
	}
	fmt.Fprintln(b, "- Deletion and insertion: J steps, baseline 0 (the training mean), features ordered by attribution Φ of F(τ|·) along the path, largest first; the score is the mean of F(original class|·) over the J steps.")
	fmt.Fprintln(b, "- ig's counterfactual is QUCE's, so its counterfactual metrics are not repeated (—); dice-random has no path or attribution (—). Seconds for ig exclude the QUCE search it reuses.")
	fmt.Fprintln(b, "- Seconds per instance: the method's whole run on the split (its search or sampling, quce-auto's every candidate, the legal-row projections; not the metrics) divided by every instance evaluated, failures included.")
	fmt.Fprintln(b, "- Recourse metrics (CARLA): yNN over the 5 nearest training rows (standardised inputs) and their model-predicted class; redundancy with one prediction per changed column; min-max distances in the training split's range per input (one-hot inputs 0/1; the ℓ0 distance is sparsity); constraint violations are counts over every counterfactual, valid or not.")
	fmt.Fprintf(b, "- QUCE: λ = (%g, %g, %g), %s, φ %g, %d steps, %s rule, K %d, ϑ %g; wachter is the same with λ3 = 0. DiCE-random: %d samples per round.\n",
		st.Config.Lambda1, st.Config.Lambda2, st.Config.Lambda3, st.Config.Optimizer, st.Config.LearningRate, st.Config.Steps, st.Config.Rule, st.Config.K, st.Config.Threshold, st.Dice.Samples)
	if k := st.Config.Counterfactuals; k > 1 {
		fmt.Fprintf(b, "- Several counterfactuals: up to %d per row. The searches (quce, quce-auto, wachter) search again holding one more column each time and keep a valid result that changes another set of columns; dice-random keeps every distinct valid candidate, drawing on until a round of two or more changed columns ends with %d (as DiCE's random method), and gives the closest and %d others sampled uniformly; agi gives one. Diversity and count-diversity are DiCE's (Mothilal, Sharma and Tan, FAT* 2020): continuous distances in MADs of the training split, a categorical column counted once.\n", k, k, k-1)
	}
	if slices.Contains(r.Methods, QUCEAuto) {
		ac := st.AutoConfig
		fmt.Fprintf(b, "- quce-auto: the same search with (λ2, λ3) chosen per instance among %s by the rule: %s; bound %.3g (the %g quantile of L_ε, trained form, over the training rows; the instance's own L_ε where larger). Chosen: %s.\n",
			lambdaList(ac.Auto.Grid), quce.AutoRule, ac.Plausibility, ac.PlausibilityQuantile, r.autoChoices())
	}
	if showPaper {
		fmt.Fprintln(b, "- \"paper\" columns are the paper's own W-BC figures (Tables 2–4 and the supplement's deletion table), for reference only; its DiCE row is the DiCE library. The authors' notebook scored uncertainty with an untrained VAE (docs/METHOD.md), so they are not expected to match, and nothing here is tuned to them.")
	}
	fmt.Fprintf(b, "- Total wall time %.1f s.\n", r.Seconds)
}

// NoneSucceeded is an error when no method gave a valid result for any instance (every
// search diverged, say, or the model's outputs are not finite): such a report measures
// nothing. It names the first failure, whose message says how to fix it; nil otherwise.
func (r *Report) NoneSucceeded() error {
	first := ""
	for _, m := range r.Methods {
		for _, s := range r.Splits {
			if r.Counts[m][s].Valid > 0 {
				return nil
			}
			for _, in := range r.Instances[m][s] {
				if first == "" && in.Failure != "" {
					first = fmt.Sprintf("%s, %s split, row %d: %s", m, s, in.Row, in.Failure)
				}
			}
		}
	}
	return fmt.Errorf("eval: no method gave a valid result for any instance (the first failure: %s)", first)
}

// WriteJSON writes the report as indented JSON: {"dataset", "n", "metrics": {METHOD:
// {SPLIT: {METRIC: value}}}, ...} with the per-instance results, counts and settings.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// lambdaList formats a grid as "(0.01, 0.1), (0.1, 0.1)".
func lambdaList(grid []quce.Lambdas) string {
	parts := make([]string, len(grid))
	for i, l := range grid {
		parts[i] = fmt.Sprintf("(%g, %g)", l.Lambda2, l.Lambda3)
	}
	return strings.Join(parts, ", ")
}

// autoChoices counts how often quce-auto chose each grid candidate and a refined one, over
// every split, how many instances with no valid candidate were searched again for all n
// steps, and how often no valid candidate was within the bound.
func (r *Report) autoChoices() string {
	ac := r.Settings.AutoConfig
	auto := ac.Auto
	grid := auto.Grid
	count := make([]int, len(grid)+1) // the last: a candidate of a refinement round
	implausible, again := 0, 0
	steps := ac.Steps
	for _, s := range r.Splits {
		for _, in := range r.Instances[QUCEAuto][s] {
			if in.Auto == nil {
				continue
			}
			count[min(in.Auto.Chosen, len(grid))]++
			if !in.Auto.Plausible {
				implausible++
			}
			for k, c := range in.Auto.Candidates {
				if k < len(grid) {
					steps = c.Steps
				} else if c.Round == 0 {
					again++
				}
			}
		}
	}
	parts := make([]string, len(grid))
	for i, l := range grid {
		parts[i] = fmt.Sprintf("(%g, %g) ×%d", l.Lambda2, l.Lambda3, count[i])
	}
	if auto.Rounds > 0 {
		parts = append(parts, fmt.Sprintf("refined (up to %d rounds) or searched again ×%d", auto.Rounds, count[len(grid)]))
	}
	searched := fmt.Sprintf("each candidate searched for %d of the %d steps; no valid candidate, so the smallest λ2 searched again for all %d: %d", steps, ac.Steps, ac.Steps, again)
	pull := "no pull-back"
	if auto.PullBack {
		pull = fmt.Sprintf("pull-back towards x with margin %g", ac.Margin)
	}
	return fmt.Sprintf("%s; %s; none within the bound: %d; %s", strings.Join(parts, ", "), searched, implausible, pull)
}
