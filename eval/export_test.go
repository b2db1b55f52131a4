package eval

import "image/color"

// RegisterForTest registers, for the tests outside the package, a method that does not run,
// as its file would; the function returned removes it again.
func RegisterForTest(name Method, label string, c color.Color, order int) func() {
	return registerForTest(about{name: name, title: label, label: label, color: c, order: order, inDefault: true, ownCounterfactual: true})
}
