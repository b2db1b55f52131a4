package main

import (
	"regexp"
	"slices"
	"strings"

	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/quce"
)

// settingFlags are the flags that set the library's settings, by the Go name the library's
// errors give a setting: a field (quce.Config.LearningRate, data.LoadOptions.Types), a
// function's argument (population.NewGrouping's edges) or a value of one
// (pipeline.Options.CacheDir ""). The package qualifier is left out where the package's own
// errors name the setting, as in quce.FieldError's "Config.LearningRate", and may be left
// out in any message. part says which of the flag's values a field is.
//
// The library checks every setting in one place and names it in Go terms; the command names
// it by its flag from this table, for quce.FieldError (configError), pipeline's and
// onnxmodel's OptionError (optionFlag), and in every other message (flagNames).
var settingFlags = map[string]struct{ flag, part string }{
	"quce.Config.Lambda1": {"lambdas", "λ1"}, "quce.Config.Lambda2": {"lambdas", "λ2"}, "quce.Config.Lambda3": {"lambdas", "λ3"},
	"quce.Config.Auto": {flag: "auto-grid"}, "quce.Auto.Grid": {flag: "auto-grid"},
	"quce.Config.LearningRate": {flag: "lr"}, "quce.Config.Steps": {flag: "steps"},
	"quce.Config.Optimizer": {flag: "optimizer"}, "quce.Config.K": {flag: "k"}, "quce.Config.Rule": {flag: "rule"},
	"quce.Config.Threshold": {flag: "threshold"}, "quce.Config.Margin": {flag: "margin"}, "quce.Config.Counterfactuals": {flag: "counterfactuals"}, "quce.Config.EarlyStop": {flag: "early-stop"},
	"quce.Config.Paths": {flag: "paths"}, "quce.Config.Samples": {flag: "samples"},
	"quce.Config.Plausibility": {flag: "plausibility-quantile"}, "quce.Config.PlausibilityQuantile": {flag: "plausibility-quantile"},
	"quce.Constraints.Frozen": {flag: "frozen"}, "quce.Constraints.Increase": {flag: "increase"},
	"quce.Constraints.Decrease": {flag: "decrease"}, "quce.Constraints.Bounds": {flag: "bounds"},
	"quce.Settings.Engine": {flag: "engine"}, "quce.Settings.Shards": {flag: "concurrent"}, "quce.Settings.UnitRows": {flag: "unit-rows"}, "quce.Config.Lambda1, Lambda2 and Lambda3": {flag: "lambdas"},

	"data.Load": {flag: "data"}, "data.LoadOptions.Target": {flag: "target"}, "data.LoadOptions.Types": {flag: "types"},
	"data.LoadOptions.Ignore": {flag: "ignore"}, "data.LoadOptions.DropMissing": {flag: "drop-missing"},
	"data.LoadOptions.SplitColumn": {flag: "split-column"}, "data.LoadSplit": {flag: "train"},

	"pipeline.Options.Model": {flag: "model"}, "pipeline.Options.ModelInput": {flag: "model-input"},
	"pipeline.Options.ModelOutput": {flag: "model-output"}, "pipeline.Options.ModelClasses": {flag: "model-classes"},
	"pipeline.Options.ModelScaler": {flag: "scaler"}, "pipeline.Options.AllowWeakModel": {flag: "allow-weak-model"},
	"pipeline.Options.CacheDir": {flag: "cache"}, `pipeline.Options.CacheDir ""`: {flag: "no-cache"},
	"onnxmodel.Options.Input": {flag: "model-input-name"}, "onnxmodel.Options.Output": {flag: "model-output-name"},

	"eval.Options.AutoMargin": {flag: "margin"}, "eval.Options.Class": {flag: "class"}, "eval.Options.Rows": {flag: "rows"}, "eval.Options.N": {flag: "n"}, "eval.Options.Splits": {flag: "splits"},
	"eval.Options.PlausibilityQuantile": {flag: "plausibility-quantile"}, "quce.Config.Sparse": {flag: "sparse"}, "quce.Config.Seed": {flag: "seed"},

	"population.Options.Bootstrap": {flag: "bootstrap"}, "population.Options.Permutations": {flag: "permutations"},
	"population.NewGrouping's column": {flag: "group-by"}, "population.NewGrouping's edges": {flag: "bins"},
	"population.NewGrouping's names": {flag: "bin-names"},
}

// unqualified is a setting's Go name without its package ("Config.LearningRate").
func unqualified(name string) string {
	if pkg, rest, ok := strings.Cut(name, "."); ok && pkg != "" && pkg == strings.ToLower(pkg) {
		return rest
	}
	return name
}

// settingFlag is the flag of the setting named name, qualified or not, and which of its
// values the setting is.
func settingFlag(name string) (flag, part string, ok bool) {
	if f, ok := settingFlags[name]; ok {
		return f.flag, f.part, true
	}
	for n, f := range settingFlags {
		if unqualified(n) == name {
			return f.flag, f.part, true
		}
	}
	return "", "", false
}

// settingName matches the Go name of a setting of settingFlags in a message, after a
// character that cannot be part of a longer name (so vae.Config.LearningRate is not
// quce's); the longest names come first, so that "Options.CacheDir \"\"" wins over
// "Options.CacheDir".
var settingName = func() *regexp.Regexp {
	names := make([]string, 0, len(settingFlags))
	for n := range settingFlags {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return len(unqualified(b)) - len(unqualified(a)) })
	alts := make([]string, len(names))
	for i, n := range names {
		rest := unqualified(n)
		alts[i] = regexp.QuoteMeta(rest)
		if rest != n {
			alts[i] = `(?:` + regexp.QuoteMeta(strings.TrimSuffix(n, rest)) + `)?` + alts[i]
		}
		if last := rest[len(rest)-1]; last != '"' {
			alts[i] += `\b`
		}
	}
	return regexp.MustCompile(`(^|[^\w.])(` + strings.Join(alts, "|") + `)`)
}()

// flagNames is msg with every setting it names in Go terms named by its flag.
func flagNames(msg string) string {
	return settingName.ReplaceAllStringFunc(msg, func(m string) string {
		lead, name := "", m
		if i := strings.IndexAny(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"); i > 0 {
			lead, name = m[:i], m[i:]
		}
		flag, _, _ := settingFlag(name)
		return lead + "-" + flag
	})
}

// flagNamed is an error whose message names settings by their flags (flagNames), wrapping
// the library's own.
type flagNamed struct {
	err error
	msg string
}

func (e *flagNamed) Error() string { return e.msg }
func (e *flagNamed) Unwrap() error { return e.err }

// namedByFlags is err with the settings it names in Go terms named by their flags.
func namedByFlags(err error) error {
	if err == nil {
		return nil
	}
	msg := flagNames(err.Error())
	if msg == err.Error() {
		return err
	}
	return &flagNamed{err: err, msg: msg}
}

// optionFlag names a field of an OptionError's Options (pipeline's or onnxmodel's, by its
// package pkg) by its flag, or by its Go name where no flag sets it.
func optionFlag(pkg string) func(field string) string {
	return func(field string) string {
		if flag, _, ok := settingFlag(pkg + ".Options." + field); ok {
			return "-" + flag
		}
		return "Options." + field
	}
}

// flagNamedFailures names the settings in the failures of ex (each path's and each automatic
// λ candidate's) by their flags, for the command's outputs, and returns ex.
func flagNamedFailures(ex []*quce.Explanation) []*quce.Explanation {
	for _, e := range ex {
		for _, p := range e.Paths {
			if p != nil {
				p.Failure = flagNames(p.Failure)
			}
		}
		flagNamedCandidates(e.Auto)
	}
	return ex
}

// flagNamedReport names the settings in r's Applied and in its instances' failures by their
// flags, each flag once (-margin sets both quce.Config.Margin and eval.Options.AutoMargin).
func flagNamedReport(r *eval.Report) {
	var named []string
	for _, a := range r.Applied {
		if a = flagNames(a); !slices.Contains(named, a) {
			named = append(named, a)
		}
	}
	r.Applied = named
	for _, splits := range r.Instances {
		for _, results := range splits {
			for i := range results {
				results[i].Failure = flagNames(results[i].Failure)
				flagNamedCandidates(results[i].Auto)
			}
		}
	}
}

// flagNamedCandidates names the settings in the failures of a's candidates by their flags.
func flagNamedCandidates(a *quce.AutoChoice) {
	if a == nil {
		return
	}
	for i := range a.Candidates {
		a.Candidates[i].Failure = flagNames(a.Candidates[i].Failure)
	}
}
