package pipeline

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// ClearMargin is how much more accuracy another class order must give, on the training
// rows, to count as clearly better than the declared one (see ModelCheck).
const ClearMargin = 0.1

// ModelCheck is the model scored on the training split before anything is explained, with
// the class order and the input units it was declared with: a model read with its classes
// in the wrong order, or fed inputs in the wrong units, explains the wrong thing with
// confidence, and its accuracy is what shows it.
//
// A user's model is weak, and Prepare refuses it unless Options.AllowWeakModel, when its
// accuracy is at or below the majority class rate (always answering the most frequent
// class would do as well), or when another order of its classes scores at least
// ClearMargin higher. The other orders are every relabelling of the predicted classes: the
// best one maximises the confusion matrix's diagonal (the assignment problem, solved
// exactly); for a binary model it is the swapped order. The built-in classifier, trained on
// the data's own classes, is scored the same way and only warned about.
type ModelCheck struct {
	// Accuracy is the share of the training rows whose predicted class (threshold 0.5 for
	// a binary model, the most probable class else) is their label.
	Accuracy float64 `json:"accuracy"`
	Rows     int     `json:"rows"` // training rows scored
	// MajorityRate is the share of the most frequent class, MajorityClass, among them.
	MajorityRate  float64 `json:"majority_rate"`
	MajorityClass string  `json:"majority_class"`
	// Classes are the data's labels in the order of the model's outputs (for one output:
	// the class of a negative logit, then of a positive one).
	Classes []string `json:"classes"`
	// BestClasses is the class order that scores best, and BestAccuracy its accuracy
	// (Classes and Accuracy when no other order does better).
	BestClasses  []string `json:"best_classes"`
	BestAccuracy float64  `json:"best_accuracy"`
	// Scaler says what the model's inputs are standardised with: "none" for raw inputs,
	// "training split", or Options.ModelScalerID for Options.ModelScaler.
	Scaler string `json:"scaler"`
	// Weak is set when the check failed: Problem says why. A weak user model is only
	// explained with AllowedWeak (Options.AllowWeakModel).
	Weak        bool   `json:"weak"`
	Problem     string `json:"problem,omitempty"`
	AllowedWeak bool   `json:"allow_weak_model"`
	BuiltIn     bool   `json:"built_in"`
}

// OptionError is a problem with the Options given to Prepare (a user's model that fails
// its check, a class order that is not one). Error names the options as Go fields
// (Options.ModelClasses); Text names them as a caller's own interface does, such as the
// command line's flags.
type OptionError struct {
	// Check holds the model check's figures when the check refused the model; else nil.
	Check *ModelCheck
	msg   string // with {Field} where an option is named
}

var optionName = regexp.MustCompile(`\{([A-Za-z]+)\}`)

// Text is the message with every option named by name(field), field being the Options
// field (ModelClasses, ModelInput, ModelScaler, AllowWeakModel, Model, …).
func (e *OptionError) Text(name func(field string) string) string {
	return optionName.ReplaceAllStringFunc(e.msg, func(m string) string { return name(m[1 : len(m)-1]) })
}

func (e *OptionError) Error() string {
	return "pipeline: " + e.Text(func(f string) string { return "Options." + f })
}

func optionErrorf(format string, args ...any) *OptionError {
	return &OptionError{msg: fmt.Sprintf(format, args...)}
}

// modelName names the user's model in messages: its file where it has one, else ModelID.
func modelName(o Options) string {
	if p, ok := o.Model.(interface{ Path() string }); ok && p.Path() != "" {
		return p.Path()
	}
	if o.ModelID != "" {
		return o.ModelID
	}
	return "the model"
}

// userClassifier wraps the user's model with the declared class order and scaler, each
// checked against the data.
func userClassifier(o Options, ds *data.Dataset, scaler *data.Scaler) (*quce.Classifier, error) {
	var opts []quce.ClassifierOption
	if o.ModelClasses != nil {
		order, err := classOrder(o.ModelClasses, ds.Labels)
		if err != nil {
			return nil, err
		}
		opts = append(opts, quce.ClassOrder(order))
	}
	if o.ModelScaler != nil {
		if o.ModelInput != quce.Standardized {
			return nil, optionErrorf("{ModelScaler} is the standardisation of a model that takes standardized inputs, but {ModelInput} is %s (a raw model standardises inside); fix: set {ModelInput} standardized, or drop {ModelScaler}", o.ModelInput)
		}
		opts = append(opts, quce.ModelScaler(o.ModelScaler))
	}
	clf, err := quce.NewClassifier(o.Model, o.ModelInput, o.ModelOutput, scaler, opts...)
	if err != nil && o.ModelScaler != nil && strings.Contains(err.Error(), "model scaler") {
		return nil, optionErrorf("{ModelScaler}: %v", err)
	}
	return clf, err
}

// classOrder maps the labels of ModelClasses to class indices of the data.
func classOrder(classes, labels []string) ([]int, error) {
	fix := fmt.Sprintf("list the data's %d labels (%s) once each, in the order of the model's outputs (for one output: the class of a negative logit, then of a positive one)", len(labels), strings.Join(labels, ","))
	if len(classes) != len(labels) {
		return nil, optionErrorf("{ModelClasses} %s names %d classes but the data have %d; fix: %s", strings.Join(classes, ","), len(classes), len(labels), fix)
	}
	order := make([]int, len(classes))
	for k, c := range classes {
		order[k] = slices.Index(labels, c)
		switch {
		case order[k] < 0:
			return nil, optionErrorf("{ModelClasses} %s: %q is not a class of the data; fix: %s", strings.Join(classes, ","), c, fix)
		case slices.Index(classes, c) != k:
			return nil, optionErrorf("{ModelClasses} %s names %q twice; fix: %s", strings.Join(classes, ","), c, fix)
		}
	}
	return order, nil
}

// scoreModel scores clf on the standardised training rows xs with labels y and judges it
// (see ModelCheck). A model that outputs NaN or an infinity on a training row is refused.
func scoreModel(b compute.Backend, clf *quce.Classifier, o Options, ds *data.Dataset, xs [][]float64, y, trainIdx []int) (*ModelCheck, error) {
	probs, err := clf.Predict(b, xs)
	var nf *quce.NonFiniteOutputError
	if errors.As(err, &nf) {
		where := fmt.Sprintf("training row %d", nf.Row+1)
		if lines, lerr := Lines(ds); lerr == nil {
			where = fmt.Sprintf("the training row on line %d of %s", lines[trainIdx[nf.Row]], RowFile(ds, trainIdx[nf.Row]))
		}
		units := fmt.Sprintf("{ModelInput} declares (now %s)", o.ModelInput)
		if o.ModelInput == quce.Standardized && o.ModelScaler != nil {
			// A scale far too small makes the inputs, and so the outputs, overflow.
			units = fmt.Sprintf("{ModelInput} declares (now %s), standardised as {ModelScaler} gives (a scale far smaller than its column's spread makes the inputs overflow)", o.ModelInput)
		}
		return nil, optionErrorf("the model %s outputs %v (its output %d) for %s, so nothing it says can be explained; fix: check its weights for NaN or Inf (a training run that diverged), and that its inputs are in the units %s",
			modelName(o), nf.Value, nf.Output, where, units)
	}
	if err != nil {
		return nil, err
	}
	k := ds.NumClasses()
	confusion := make([][]float64, k) // [true class][predicted class]
	count := make([]int, k)
	for i := range confusion {
		confusion[i] = make([]float64, k)
	}
	for i, p := range probs {
		confusion[y[i]][quce.PredictedClass(p, 0.5)]++
		count[y[i]]++
	}
	n := float64(len(y))
	order := clf.ClassOrder()
	chk := &ModelCheck{Rows: len(y), Classes: labelsOf(ds.Labels, order), AllowedWeak: o.AllowWeakModel && o.Model != nil, BuiltIn: o.Model == nil}
	for c := range k {
		chk.Accuracy += confusion[c][c]
	}
	chk.Accuracy /= n
	majority := slices.Index(count, slices.Max(count))
	chk.MajorityRate, chk.MajorityClass = float64(count[majority])/n, ds.Labels[majority]
	// Relabelling predicted class p as relabel[p] scores Σ_p confusion[relabel[p]][p]; the
	// model's output k then scores class relabel[order[k]].
	relabel := bestAssignment(confusion)
	for p, t := range relabel {
		chk.BestAccuracy += confusion[t][p]
	}
	chk.BestAccuracy /= n
	best := make([]int, k)
	for j, c := range order {
		best[j] = relabel[c]
	}
	chk.BestClasses = labelsOf(ds.Labels, best)
	if chk.BestAccuracy <= chk.Accuracy {
		chk.BestClasses, chk.BestAccuracy = chk.Classes, chk.Accuracy
	}
	switch {
	case chk.Accuracy <= chk.MajorityRate:
		chk.Weak = true
		chk.Problem = fmt.Sprintf("accuracy %.3f, at or below the majority class rate %.3f of always answering %s", chk.Accuracy, chk.MajorityRate, chk.MajorityClass)
	case chk.BestAccuracy >= chk.Accuracy+ClearMargin:
		chk.Weak = true
		chk.Problem = fmt.Sprintf("accuracy %.3f, but %.3f with its classes in the order %s", chk.Accuracy, chk.BestAccuracy, strings.Join(chk.BestClasses, ","))
	}
	switch {
	case o.Model == nil:
		chk.Scaler = "training split"
	case o.ModelInput == quce.Raw:
		chk.Scaler = "none"
	case o.ModelScaler != nil:
		chk.Scaler = o.ModelScalerID
		if chk.Scaler == "" {
			chk.Scaler = "Options.ModelScaler"
		}
	default:
		chk.Scaler = "training split"
	}
	return chk, nil
}

// refusal is the error for a weak user model: the figures and the likely fixes, the class
// order first when another one would make the model clearly useful.
func refusal(chk *ModelCheck, o Options, ds *data.Dataset) error {
	head := fmt.Sprintf("the model %s scores %.3f on the %d training rows of %s (majority class rate %.3f: always answering %s)",
		modelName(o), chk.Accuracy, chk.Rows, DataFile(ds), chk.MajorityRate, chk.MajorityClass)
	order := strings.Join(chk.BestClasses, ",")
	units := "{ModelInput} (now raw, the data's own values: standardized if the model takes (value − mean) / scale, with {ModelScaler} giving the standardisation it was trained with)"
	if o.ModelInput == quce.Standardized {
		units = fmt.Sprintf("{ModelInput} (now standardized: raw if the model takes the data's own values) and {ModelScaler} (now: %s; it should be the standardisation the model was trained with)", chk.Scaler)
	}
	dflt := fmt.Sprintf("the classes are in the data's order unless {ModelClasses} says otherwise: %s", strings.Join(ds.Labels, ","))
	var msg string
	if chk.BestAccuracy >= chk.Accuracy+ClearMargin && chk.BestAccuracy >= chk.MajorityRate+ClearMargin {
		msg = fmt.Sprintf("%s; with the classes in the order %s it would score %.3f; fix: use {ModelClasses} %s (the data's labels in the order of the model's outputs; for one output, the class of a negative logit then of a positive one; %s), or check %s; or use {AllowWeakModel} to explain it anyway",
			head, order, chk.BestAccuracy, order, dflt, units)
	} else {
		msg = fmt.Sprintf("%s; no other class order scores clearly above both its accuracy and the majority class rate (the best, %s, scores %.3f), so it does not fit these data as declared; fix: check %s, that the data are those the model was trained on, and {ModelClasses} (now %s; %s); or use {AllowWeakModel} to explain it anyway",
			head, order, chk.BestAccuracy, units, strings.Join(chk.Classes, ","), dflt)
	}
	return &OptionError{Check: chk, msg: msg}
}

// labelsOf is the labels of the classes, in order.
func labelsOf(labels []string, classes []int) []string {
	out := make([]string, len(classes))
	for i, c := range classes {
		out[i] = labels[c]
	}
	return out
}

// bestAssignment returns the assignment a (column j to row a[j], each row once) that
// maximises Σ_j w[a[j]][j] for a square matrix w: the Hungarian method, O(n³).
func bestAssignment(w [][]float64) []int {
	n := len(w)
	// Minimise the cost −w with potentials u (rows) and v (columns), 1-based, row 0 a
	// sentinel; p[j] is the row matched to column j.
	u, v := make([]float64, n+1), make([]float64, n+1)
	p, way := make([]int, n+1), make([]int, n+1)
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		minv := make([]float64, n+1)
		used := make([]bool, n+1)
		for j := range minv {
			minv[j] = math.Inf(1)
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], math.Inf(1), 0
			for j := 1; j <= n; j++ {
				if used[j] {
					continue
				}
				if cur := -w[i0-1][j-1] - u[i0] - v[j]; cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= n; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	a := make([]int, n)
	for j := 1; j <= n; j++ {
		a[j-1] = p[j] - 1
	}
	return a
}

// logModelCheck reports the model check in one line.
func logModelCheck(logf func(string, ...any), chk *ModelCheck) {
	verdict := "passes the check"
	if chk.Weak {
		verdict = "is weak: " + chk.Problem
	}
	logf("model check: accuracy %.3f on %d training rows (majority class rate %.3f), classes in the model's order %s: the model %s",
		chk.Accuracy, chk.Rows, chk.MajorityRate, strings.Join(chk.Classes, ","), verdict)
}
