// Package eval runs the paper's evaluation: QUCE against its baselines on any prepared
// data set, with one classifier, one VAE and the same batched machinery for every method,
// and reports the paper's metrics (docs/METHOD.md, "Metrics") as the paper's tables and as
// JSON.
//
// # Methods
//
//   - quce: the QUCE search (quce.Explainer.Explain) with Options.Config.
//   - ig: the straight line from x to QUCE's counterfactual x_c with K_total points
//     (Options.IGPoints, by default as many as QUCE's path has), measured with
//     quce.Explainer.ExplainPaths, the same path attribution. QUCE runs once per split;
//     ig reuses its counterfactuals.
//   - agi: individual AGI, x ← x − η·sign(∇ log F(f(x)|x)), every row at once in one GoMLX
//     graph, each stopping on its own at the class flip (F(τ|x) ≥ ϑ) or at the step limit
//     (η 0.01, 1000 steps); the sign of the log-probability's gradient is taken from the
//     logit's, so it does not vanish when the classifier saturates. Its path is measured
//     with ExplainPaths. Report.AGIFlipped counts the runs that reached the other class.
//     On mixed data a run stops when the legal row nearest its point is in class τ, and
//     the path ends with the walk to that row (see below).
//   - wachter: the QUCE search with λ3 = 0.
//   - dice-random: DiCE's random strategy (see RunDice), drawing columns and legal values
//     (see below); no path, so only counterfactual metrics apply.
//
// With Config.Counterfactuals k > 1 the searches (quce, quce-auto, wachter) give each
// instance up to k distinct valid counterfactuals (quce.Explanation.Counterfactuals), and
// dice-random up to k valid candidates, picked as DiCE's random method picks its total_CFs
// (see DiceResult.Counterfactuals), the first being the one it finds alone; agi gives one.
//
// Each method is one file (ig.go, agi.go, dice.go; quce.go holds the three that are the
// explainer's own search with a configuration each: quce, quce-auto, wachter): its Method
// name and a runner, which the file registers and which says what the method is (its
// names in tables and legends, its colour, its place in the tables, whether it is among
// DefaultMethods, whether it makes a path and whether its counterfactual is its own, which
// decide the metrics that apply; the methods whose outcomes it reads) and runs it on one
// split's instances. Adding a method is such a file; Run, the metrics, the tables,
// ParseMethods, Methods (which the plots' legends and colours, and quce eval's -methods,
// come from) need nothing more. Run takes Data, an explainer and its splits (FromSetup
// makes it from a prepared pipeline.Setup), runs each chosen method once per split in table
// order, and measures every outcome the same way.
//
// Every instance of every method has an InstanceResult; one that fails (an invalid
// counterfactual, an AGI run that never flipped, no DiCE candidate in the other class, a
// search that diverged, a probability that is not finite) says why in its Failure field, is
// never counted valid, and the tables list the failures. Report.NoneSucceeded says when no
// method gave a valid result at all.
//
// # Metrics
//
// Keys and applicability are in MetricKeys and Applies. How each is computed, including the
// choices the paper leaves open:
//
//   - Path uncertainty is the paper-form L_ε ((1/J)Σ(x − x̂)² + KL, z = μ(x), the paper's
//     "VAE loss") averaged over Options.Interp = 1000 interpolation points of the path: the
//     Riemann right end points t = k/1000, k = 1..1000, of the path parametrised by step
//     index (evenly per segment; Options.ArcLength switches to arc length). A path of 1000
//     steps, such as QUCE's and ig's by default, is thus sampled exactly at its own points,
//     whose L_ε the explainer already measured and which are reused. Mean and population
//     standard deviation over instances. The trained (negative-ELBO) form is reported too
//     (path_uncertainty_trained_*, cf_uncertainty_trained); docs/METHOD.md, "The VAE and its
//     uncertainty", explains the two forms.
//   - Counterfactual uncertainty, reconstruction error (mean over features of
//     |x_c − dec(μ(x_c))|), proximity (L1, L2 in standardised units) and sparsity (columns
//     changed: a continuous one by more than 1e-3 standardised, a discrete one at all, a
//     categorical block once; see Changed) average over valid counterfactuals (all of them
//     with Options.AllCounterfactuals); validity is over all instances.
//   - Completeness gap is the mean of |Σ_j Φ_j − (F(τ|x_c) − F(τ|x))|.
//   - Deletion: features ordered by Φ (of F(τ|·) along the path, so a large value marks a
//     feature whose value at x holds the original class), largest first, set one by one to
//     0 (the training mean); the score is the mean of F(original class|·) over the J
//     resulting points (lower is better). Insertion starts from the baseline and puts x's
//     features back in the same order (higher is better).
//   - Seconds per instance is the method's wall time on the split over its instances: the
//     search and the attribution (ig: the line's attribution only, not the QUCE search it
//     reuses); the metrics' own cost is not included. It is over every instance evaluated,
//     failures included.
//   - The recourse metrics of CARLA (Pawelczyk et al., 2021), for the methods with their own
//     counterfactual, over valid counterfactuals and again over the matched instances: YNN
//     (the share of x_c's 5 nearest training rows, standardised, that the model predicts as
//     τ), Redundancy (changed columns that alone could be set back with x_c still valid, one
//     prediction each), the min-max distances (ℓ1, ℓ2, ℓ∞ with each input scaled by the
//     training split's range; ℓ0 is sparsity) and ConstraintViolations (a count, over every
//     counterfactual, of those that break Options.Constraints; see Violates).
//   - With Config.Counterfactuals k > 1 (absent otherwise), for the methods with their own
//     counterfactual: CounterfactualsPerRow and TwoOrMore over every instance, and over the
//     valid ones the mean distance of a row's counterfactuals (OptionsDistanceL1MinMax) and,
//     with two or more, DiCE's Diversity, apart over continuous and categorical columns, and
//     Count-Diversity (DiversityOf, CountDiversityOf, with MAD of the training split).
//
// # Mixed data and constraints
//
// On data with discrete columns (data.Column: integer, binary, ordinal, categorical as a
// one-hot block) every reported counterfactual is a legal row, one the data could hold, and
// every method's instances are constrained by Options.Constraints (frozen columns,
// increase- or decrease-only columns, bounds) through quce.Explainer.Constrain. quce,
// quce-auto and wachter are the explainer's search, which keeps the constraints and projects
// its end onto the nearest legal row; ig's line joins two legal rows inside the box. AGI's
// steps leave frozen inputs alone and are clamped to each instance's box (the bounds, else
// the training split's observed range, as for QUCE); its end is projected onto the nearest
// legal row as QUCE's is, and the projection is walked as more path segments, so the metrics
// are the legal row's and the attribution still integrates to it. DiCE-random draws each
// chosen column from its legal values inside the box: a category seen in training, one of
// two binary values, and for a numeric column (an integer or ordinal rank, or a continuous
// value) one uniform in the training range clamped into the box. Every method's
// counterfactual is reported in the data's units as the explainer reports its own
// (quce.Explainer.DataUnits): unchanged values exactly as read, every bound exactly. On
// numeric data without constraints the box is the observed range, which the plain methods'
// counterfactuals rarely reach.
//
// The N instances of a split are a seeded sample (Options.Seed), listed in data order; with
// Options.Class, the first N of the seeded order that need recourse (the model does not
// already predict the class); Options.Rows names rows by their CSV lines instead. The report
// lists every setting that differs from its default (Report.Applied).
// The paper's W-BC figures (PaperWBC) are shown beside ours, marked "paper", only when the
// data set is the embedded W-BC; they are for reference and nothing is tuned to them. Why they
// differ in scale from ours is in docs/METHOD.md, "Why our uncertainty figures differ from the
// paper's".
package eval
