package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/quce-go/quce/pipeline"
)

// flagError is err with the options it names written as the flags that set them.
func flagError(err error) error {
	var oe *pipeline.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	return errors.New(oe.Text(optionFlag("pipeline")))
}

// modelHeader is what stdout says about the model before its results, also with -q: which
// model, its accuracy on the training rows against the majority class rate, and its
// classes in the order of its outputs; and, when it failed the check and is explained
// anyway, that loudly.
func modelHeader(c *common, s *pipeline.Setup) string {
	chk := s.ModelCheck
	var b strings.Builder
	name := "the built-in classifier (hidden " + intList(s.Options.Classifier.Hidden) + ")"
	units := ""
	if !chk.BuiltIn {
		name = c.modelPath
		units = fmt.Sprintf(" (%s inputs", s.Options.ModelInput)
		if chk.Scaler != "none" {
			scaler := "the training split's scaler"
			if c.scalerPath != "" {
				scaler = c.scalerPath
			}
			units += ", standardised with " + scaler
		}
		units += fmt.Sprintf(", %s output)", s.Options.ModelOutput)
	}
	fmt.Fprintf(&b, "model: %s%s, accuracy %.3f on the %d training rows (majority class %.3f); classes in the model's order: %s\n",
		name, units, chk.Accuracy, chk.Rows, chk.MajorityRate, strings.Join(chk.Classes, ", "))
	switch {
	case chk.Weak && chk.AllowedWeak:
		fmt.Fprintf(&b, "WARNING: the model fails the check before explaining: %s; it is explained anyway because of -allow-weak-model, so its explanations may describe the wrong class or units\n", chk.Problem)
	case chk.Weak:
		fmt.Fprintf(&b, "warning: the built-in classifier is weak: %s; its explanations describe a model that has learnt little\n", chk.Problem)
	}
	return b.String()
}
