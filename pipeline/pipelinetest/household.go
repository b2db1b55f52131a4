package pipelinetest

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
)

// HouseholdCSV is a small census-like table whose categories are tied to each other, made
// deterministically: relationship = Husband holds only for sex = Male and marital = Married,
// Wife only for Female and Married, Own-child only for Never-married, Unmarried only for
// Never-married or Divorced. The target income (low / high) rises with being married, with
// education, hours and age, so a counterfactual for a low income is pulled towards Married
// and Husband or Wife: the nearest legal row of a search that changes one of them alone pairs
// categories no row holds (Married with Unmarried, Husband with Female).
func HouseholdCSV() []byte {
	rng := rand.New(rand.NewPCG(7, 11))
	var b bytes.Buffer
	b.WriteString("age,hours,education,sex,marital,relationship,income\n")
	education := []string{"HS-grad", "Bachelors", "Masters"}
	for range 600 {
		age := 18 + rng.IntN(53)
		hours := 20 + rng.IntN(41)
		edu := rng.IntN(3)
		sex := []string{"Male", "Female"}[rng.IntN(2)]
		marital := "Never-married"
		switch u := rng.Float64(); {
		case age >= 25 && u < 0.6:
			marital = "Married"
		case age >= 25 && u < 0.8:
			marital = "Divorced"
		}
		relationship := "Unmarried"
		switch {
		case marital == "Married" && sex == "Male":
			relationship = "Husband"
		case marital == "Married":
			relationship = "Wife"
		case marital == "Never-married" && age < 30:
			relationship = "Own-child"
		}
		married := 0.0
		if marital == "Married" {
			married = 1
		}
		z := 3*married + float64(edu) + 0.06*float64(hours-40) + 0.03*float64(age-40) - 2.5
		income := "low"
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			income = "high"
		}
		fmt.Fprintf(&b, "%d,%d,%s,%s,%s,%s,%s\n", age, hours, education[edu], sex, marital, relationship, income)
	}
	return b.Bytes()
}

// Household is HouseholdCSV with the default models.
var Household = prepareOnce("builtin-household", func() (pipeline.Options, error) {
	ds, err := data.Parse(bytes.NewReader(HouseholdCSV()), "household", data.LoadOptions{})
	return pipeline.Options{Data: ds}, err
})
