package population

import (
	"fmt"

	"github.com/quce-go/quce/quce"
)

// The kinds of counterfactual a summary can be made of (Counterfactuals), as the JSON names
// them.
const (
	Closest          = "closest"           // automatic λ with its pull-back: the closest plausible change found
	ClosestCandidate = "closest_candidate" // automatic λ without the pull-back: the closest valid candidate's end
	FixedLambda      = "fixed_lambda"      // one λ for every row: where the search's steps ended
)

// Counterfactuals says what kind of counterfactual the configuration cfg searches and what
// a summary's costs then mean, for its header and JSON. The recourse literature (CERTIFAI's
// burden, equalizing recourse across groups) measures a row's burden as its distance to the
// closest counterfactual: automatic λ with the pull-back searches for that one. At a fixed λ
// the search walks all its steps, past the boundary, so a cost there is how far the search
// went, which depends on λ and the steps, not on the change the row needs; a difference of
// cost between groups then need not be a difference of burden.
func Counterfactuals(cfg quce.Config) (kind, note string) {
	switch {
	case cfg.Auto != nil && cfg.Auto.PullBack:
		return Closest, "the closest plausible change found for each row (automatic λ, each counterfactual walked back towards its row while it stays valid with the margin and plausible), so a cost is the row's recourse burden"
	case cfg.Auto != nil:
		return ClosestCandidate, "for each row the end of its closest valid candidate of automatic λ, not walked back towards the row (pull-back off), so a cost is an upper bound of the row's recourse burden"
	}
	return FixedLambda, fmt.Sprintf("the end of a search at fixed λ = %g, %g, %g: the search walks its %d steps past the decision boundary, so a cost is how far the search went, not the least change the row needs; the closest counterfactual (automatic λ with its pull-back) measures the recourse burden",
		cfg.Lambda1, cfg.Lambda2, cfg.Lambda3, cfg.Steps)
}
