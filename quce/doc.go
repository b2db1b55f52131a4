// Package quce explains a classifier's decision for an instance x with QUCE: a counterfactual
// x_c that the model assigns to another class τ, the path that leads there, the features'
// shares of the change in the model's output, and how uncertain those shares are.
//
// # The search
//
// Gradient descent moves a copy of x towards τ, minimising
//
//	G(x_c) = λ1·(−log F(τ|x_c)) + λ2·½‖x_c − x‖² + λ3·L_ε(x_c)
//
// where F is the classifier's probability and L_ε the loss of a variational autoencoder
// trained on the data (package vae): a point the VAE reconstructs badly is far from the data,
// so the search prefers paths that stay among plausible points. Every iterate is kept, so the
// path x = x_Δ0, x_Δ1, …, x_Δn = x_c is part of the result (Path). Constraints hold at every
// step: frozen features keep their value, and every feature is projected into its box: the
// observed range of the training split unless the user's bounds and monotone constraints say
// otherwise (Query, Constraints). With categorical and integer columns
// (Settings.Columns) the end of the search is moved to the nearest legal row, and kept off
// pairs of categories that no training row holds (Settings.SeenCategories). Outputs
// in the data's units are exact: an unchanged value is the instance's own, and every bound
// holds exactly (Path.PointsOriginal). Config.Auto chooses λ2 and λ3 per
// instance among candidates; the walks back towards x after the search keep F(τ|·) a margin
// above ϑ (Config.Margin, reported as Path.Margin).
//
// # The attribution and its uncertainty
//
// The change F(τ|x_c) − F(τ|x) is split over the features by integrating F's gradient along
// the recorded path, segment by segment with a quadrature rule (Config.Rule, Config.K):
// Path.Attribution, Φ. Like any integrated-gradients method it must add up: every path and
// every explanation carries its completeness check, CompletenessGap = Σ_j Φ_j − (F(τ|x_c) −
// F(τ|x)), zero for exact integration. The VAE's reconstruction gap at the counterfactual,
// ε = |x_c − r(x_c)|, gives the ± attributions Φ⁺ and Φ⁻ (straight-line integrated gradients
// from x_c to x_c ± ε): how much the attribution could move within what the VAE cannot tell
// apart. With Config.Paths > 1, more paths start at seeded offsets of x, and the
// explanation's attribution is their mean, with its spread (Explanation.AttributionStd).
//
// # Running it
//
// An Explainer (New) holds the classifier, the VAE and the scaler between original and
// standardised units; package pipeline builds one from a data set. The classifier is a Model
// behind NewClassifier: the built-in one (package classifier), a GoMLX model (package
// gomlxmodel) or an ONNX file (package onnxmodel). Explain takes many instances at once:
// their paths walk together as the rows of one batch, sharded over the CPU cores (and the
// backend's devices, where it has several), each row independent of the others (so a result
// does not depend on its batch), and rows that stop early or fail leave the batch. The built-in networks' backward passes are written out
// (package backprop); other models are differentiated by GoMLX's autodiff. Results are
// deterministic given Config.Seed.
//
// # Three engines
//
// A batch's search can run as one compiled program (the loop engine, loop.go): a
// graph.While over the optimisation steps whose state is the rows' points, optimiser state,
// attribution so far, uncertainty sums, kept points and stop and failure flags, so the
// results come back once instead of after every step, which is what a backend with costly
// executions (a GPU) needs. The step engine (walk.go) runs one execution per step and does
// the same bookkeeping on the host: it runs where the loop cannot (a backend without While,
// sampled codes in L_ε) and for large batches on the pure-Go backend, whose executions cost
// little beyond their operations. The replay engine (replay.go) runs the step engine's
// program many steps an execution and replays its bookkeeping on the host afterwards: on
// the pure-Go backend the fastest for batches of up to 100 rows, a one-row search in three
// executions (Settings.Engine). The three walk the same paths: the loop does each
// row's arithmetic in the same order and precision as the host (the attribution in
// float64), the replay runs the host's own code, and tests hold them to the same bits.
// Stats.Engine says which ran and Stats.Executions how many executions it took.
//
// # Structure
//
// Explainer is a facade: it holds the models and its Settings (the data's columns, the
// engine, shards, batching, memory limit and callbacks), given once to New and resolved for
// the backend there (settings.go: every "auto" is decided in Settings.resolve), and each of
// its methods delegates. Nothing in it changes after New, so concurrent calls share it
// without locks; With makes another explainer of the same models with other settings,
// sharing the compiled programs. A call's search is a job (job.go), made of plain values
// when the call begins, with counters of its own that become the call's Stats: it makes the rows, walks them on an engine
// (engine.go; walk.go, loop.go, replay.go), then projects, resets, pulls back and assembles them. The
// engines and the steps after the search measure through programs (programs.go): the graph
// builders (graphs.go and the loop's), the compiled programs, which all calls share, and the
// count of their executions. What needs no program is a function of plain values: a query's
// box, the constraints, the legal rows and the data's units are methods of inputs (the
// inputs' names, columns and scaler; inputs.go), the memory estimate one of memoryModel, and
// projection, sparsity and pull-back take the programs and inputs they use as arguments.
//
// # Settings: a λ's walk
//
// Every setting lives in Config and is checked in one place, Config.Validate, which returns
// a *FieldError naming the field by its Go name ("Config.Lambda1", "Config.LearningRate", …),
// as every message of the library names a setting. A λ goes one way down to the graph. From
// the command line: the flags are parsed into a Config (cmd/quce's config), Validate runs
// once before anything trains, and the CLI names a refused field by its flag from one table;
// after the models are prepared, Explainer.WithBound takes
// the plausibility bound of automatic λ and sparsity from the training rows at
// Config.PlausibilityQuantile; Explain then feeds the rows' λ to the search's program as a
// [rows, 3] input. From a
// notebook's sliders (gonbext.Tune): the slider values are set on a copy of the Config and
// passed to Explain, which validates it. Explain refuses a configuration that still lacks
// the bound it needs, naming WithBound as the fix.
package quce
