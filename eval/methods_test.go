package eval

import (
	"context"
	"errors"
	"image/color"
	"slices"
	"testing"
)

// The registry every method's file adds itself to: the methods in table order, each fully
// described, none sharing a name, alias, order or colour with another, and each after the
// methods it needs.
func TestRegistry(t *testing.T) {
	want := []Method{QUCE, QUCEAuto, IG, AGI, Wachter, DiceRandom}
	if got := AllMethods(); !slices.Equal(got, want) {
		t.Errorf("AllMethods() = %v, want %v", got, want)
	}
	if got := DefaultMethods(); !slices.Equal(got, want) {
		t.Errorf("DefaultMethods() = %v, want %v", got, want)
	}
	if err := checkRegistry(registry); err != nil {
		t.Error(err)
	}
}

// checkRegistry is an error naming the first method of rs that is not fully described,
// shares a name, alias, order or colour with one before it, is out of order or comes before
// a method it needs.
func checkRegistry(rs []runner) error {
	for i, r := range rs {
		a := r.about()
		if a.name == "" || a.title == "" || a.label == "" || a.color == nil {
			return errors.New("method " + string(a.name) + " lacks a name, title, label or colour")
		}
		for _, o := range rs[:i] {
			b := o.about()
			names := append([]string{string(b.name)}, b.aliases...)
			switch {
			case slices.Contains(names, string(a.name)) || slices.ContainsFunc(a.aliases, func(n string) bool { return slices.Contains(names, n) }):
				return errors.New("methods " + string(b.name) + " and " + string(a.name) + " share a name")
			case a.order <= b.order:
				return errors.New("method " + string(a.name) + " is not after " + string(b.name) + " in order")
			case a.color == b.color:
				return errors.New("methods " + string(b.name) + " and " + string(a.name) + " share a colour")
			}
		}
		for _, n := range a.needs {
			if !slices.ContainsFunc(rs[:i], func(o runner) bool { return o.about().name == n }) {
				return errors.New("method " + string(a.name) + " needs " + string(n) + ", which does not run before it")
			}
		}
	}
	return nil
}

// checkRegistry finds each kind of mistake.
func TestCheckRegistry(t *testing.T) {
	quce, _ := lookup(QUCE)
	ig, _ := lookup(IG)
	for _, tc := range []struct {
		name string
		rs   []runner
	}{
		{"no colour", []runner{fakeRunner{about{name: "x", title: "X", label: "X", order: 1}}}},
		{"same name", []runner{fakeRunner{quce}, fakeRunner{quce}}},
		{"an alias that is a name", []runner{fakeRunner{quce}, fakeRunner{about{name: "x", title: "X", label: "X", color: okabeIto.orange, order: 99, aliases: []string{"quce"}}}}},
		{"same colour", []runner{fakeRunner{quce}, fakeRunner{about{name: "x", title: "X", label: "X", color: quce.color, order: 99}}}},
		{"out of order", []runner{fakeRunner{ig}, fakeRunner{quce}}},
		{"needs a later method", []runner{fakeRunner{about{name: "x", title: "X", label: "X", color: okabeIto.orange, order: 1, needs: []Method{QUCE}}}, fakeRunner{quce}}},
	} {
		if checkRegistry(tc.rs) == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

// Each method's label and colour in the plots: the Okabe-Ito colours.
func TestMethodInfo(t *testing.T) {
	for _, tc := range []struct {
		m     Method
		label string
		color color.Color
	}{
		{QUCE, "QUCE", color.RGBA{0x00, 0x72, 0xb2, 0xff}},
		{QUCEAuto, "QUCE (auto λ)", color.RGBA{0x56, 0xb4, 0xe9, 0xff}},
		{IG, "IG", color.RGBA{0xe6, 0x9f, 0x00, 0xff}},
		{AGI, "AGI", color.RGBA{0x00, 0x9e, 0x73, 0xff}},
		{Wachter, "Wachter", color.RGBA{0xcc, 0x79, 0xa7, 0xff}},
		{DiceRandom, "DiCE (random)", color.RGBA{0xd5, 0x5e, 0x00, 0xff}},
	} {
		info, ok := tc.m.Info()
		if !ok || info.Name != tc.m || info.Label != tc.label || info.Color != tc.color || !info.Default {
			t.Errorf("%s.Info() = %+v, %v; want label %q, colour %v, in the default set", tc.m, info, ok, tc.label, tc.color)
		}
	}
	if _, ok := Method("shap").Info(); ok {
		t.Error("an unknown method has info")
	}
}

// A method registered as its file does is everywhere the methods are listed: in table order
// among the others, among the defaults when it says so, and known to ParseMethods.
func TestRegisteredMethodIsListed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		inDefault bool
	}{{"in the default set", true}, {"not in the default set", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Cleanup(registerForTest(about{name: "growing-spheres", title: "Growing Spheres", label: "GS",
				color: color.RGBA{0x12, 0x34, 0x56, 0xff}, order: 35, inDefault: tc.inDefault, ownCounterfactual: true}))
			all := []Method{QUCE, QUCEAuto, IG, "growing-spheres", AGI, Wachter, DiceRandom}
			if got := AllMethods(); !slices.Equal(got, all) {
				t.Errorf("AllMethods() = %v, want %v", got, all)
			}
			if got := slices.Contains(DefaultMethods(), "growing-spheres"); got != tc.inDefault {
				t.Errorf("DefaultMethods() = %v: has the method %v, want %v", DefaultMethods(), got, tc.inDefault)
			}
			if got, err := ParseMethods("GROWING-SPHERES,quce"); err != nil || !slices.Equal(got, []Method{QUCE, "growing-spheres"}) {
				t.Errorf("ParseMethods = %v, %v", got, err)
			}
			i := slices.IndexFunc(Methods(), func(m MethodInfo) bool { return m.Name == "growing-spheres" })
			if i != 3 || Methods()[i].Label != "GS" {
				t.Errorf("Methods() = %+v; want GS fourth", Methods())
			}
			if !Applies("growing-spheres", Validity) || Applies("growing-spheres", Deletion) {
				t.Error("the metrics that apply do not follow the method's description")
			}
			if err := checkRegistry(registry); err != nil {
				t.Error(err)
			}
		})
	}
	if slices.Contains(AllMethods(), "growing-spheres") {
		t.Error("the test's method is still registered")
	}
}

// fakeRunner is a method that is described but does not run.
type fakeRunner struct{ a about }

func (r fakeRunner) about() about { return r.a }

func (r fakeRunner) run(context.Context, *split) ([]*outcome, error) {
	return nil, errors.New("eval: " + string(r.a.name) + " is a test's method and does not run")
}

// registerForTest registers a method described by a that does not run, and returns the
// function that removes it again.
func registerForTest(a about) func() {
	saved := slices.Clone(registry)
	register(fakeRunner{a})
	return func() { registry = saved }
}
