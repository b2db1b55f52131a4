package eval

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/quce-go/quce/quce"
)

// applied lists every setting of o (with its defaults) that differs from the defaults, by
// its Go name and value ("quce.Config.Sparse", "eval.Options.Class \"yes\""), so that the
// report says everything that shaped its figures. The instance count, splits, methods and
// seed are in the report's header; progress and the paths kept change no figure. A program
// with names of its own for the settings (the command line's flags) may rename them.
func applied(o Options) []string {
	var out []string
	cfg, def := o.Config, quce.DefaultConfig()
	if cfg.Lambda1 != def.Lambda1 || cfg.Lambda2 != def.Lambda2 || cfg.Lambda3 != def.Lambda3 {
		out = append(out, fmt.Sprintf("quce.Config.Lambda1, Lambda2 and Lambda3 %g,%g,%g", cfg.Lambda1, cfg.Lambda2, cfg.Lambda3))
	}
	if cfg.Auto != nil {
		out = append(out, "quce.Config.Lambda1, Lambda2 and Lambda3 auto")
	}
	out = append(out, differing("quce.Config.", cfg, def, "Lambda1", "Lambda2", "Lambda3", "Auto", "PathPoints", "Plausibility")...)
	if !reflect.DeepEqual(o.Auto.Grid, quce.DefaultAuto().Grid) {
		out = append(out, "quce.Auto.Grid "+lambdaList(o.Auto.Grid))
	}
	if o.AutoMargin != nil && *o.AutoMargin != quce.DefaultMargin {
		out = append(out, fmt.Sprintf("eval.Options.AutoMargin %g", *o.AutoMargin))
	}
	if !o.Constraints.Empty() {
		out = append(out, o.Constraints.String())
	}
	d := DefaultOptions().withDefaults()
	d.Auto = o.Auto
	return append(out, differing("eval.Options.", o, d, "N", "Splits", "Methods", "Seed", "Config", "Constraints", "Auto", "AutoMargin", "KeepPaths", "Progress")...)
}

// differing is "prefix+Field value" for every field of the structs v and def (of one type)
// whose values differ, but for those skipped, in field order: a true bool as its name
// alone, a string quoted, a slice of numbers comma-separated.
func differing(prefix string, v, def any, skip ...string) []string {
	a, b := reflect.ValueOf(v), reflect.ValueOf(def)
	var out []string
	for i := 0; i < a.NumField(); i++ {
		f := a.Type().Field(i)
		if !f.IsExported() || reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) || slices.Contains(skip, f.Name) {
			continue
		}
		name := prefix + f.Name
		switch x := a.Field(i).Interface().(type) {
		case bool:
			if x {
				out = append(out, name)
			} else {
				out = append(out, name+" false")
			}
		case string:
			out = append(out, fmt.Sprintf("%s %q", name, x))
		case []int:
			list := make([]string, len(x))
			for k, n := range x {
				list[k] = strconv.Itoa(n)
			}
			out = append(out, name+" "+strings.Join(list, ","))
		default:
			out = append(out, fmt.Sprintf("%s %+v", name, x))
		}
	}
	return out
}
