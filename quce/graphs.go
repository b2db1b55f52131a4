package quce

import (
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/quce-go/quce/backprop"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/signature"
	"github.com/quce-go/quce/vae"
)

// Graph builders. Every quantity is per row: sums over rows are only ever taken to get
// gradients with respect to the rows themselves, which keeps rows independent. The target
// class τ of each row comes as a one-hot row target [R, classes], so binary and multi-class
// models share every graph.

// Adam's constants, as in PyTorch and the paper.
const (
	adamBeta1   = 0.9
	adamBeta2   = 0.999
	adamEpsilon = 1e-8
)

// classAt returns log F(τ|x) and F(τ|x) [N] at points x [N, J] with one-hot targets
// [N, C], and the gradient of log F(τ|x) with respect to x [N, J]: one forward and one
// backward pass of the classifier (recorded on t; nil: autodiff) for all the points, which is
// why a step stacks the current points and the quadrature nodes into one x. The gradient of F
// itself is F·∇log F (gradF).
func classAt(clf *Classifier, t *backprop.Tape, x, target *Node) (lp, p, gradLp *Node) {
	lp, gradLp = clf.targetLogProbGrad(t, x, target)
	return lp, Exp(lp), gradLp
}

// gradF is ∇F(τ|x) = F(τ|x)·∇log F(τ|x), [N, J], from p [N] and gradLp [N, J].
func gradF(p, gradLp *Node) *Node { return Mul(ExpandAxes(p, -1), gradLp) }

// lambdas are each row's weights λ1, λ2, λ3 of the objective, [R, 1] each.
type lambdas struct{ l1, l2, l3 *Node }

// splitLambdas takes the weights out of lam [R, 3] = (λ1, λ2, λ3). A loop whose weights do
// not change splits them once, before it (three slices fewer a step).
func splitLambdas(lam *Node) lambdas {
	weight := func(i int) *Node { return Slice(lam, AxisRange(), AxisElem(i)) }
	return lambdas{weight(0), weight(1), weight(2)}
}

// objective is G(x_c) per row and its gradient with respect to x_c, with each row's weights
// lam:
//
//	G  = λ1·(−log F(τ|x_c)) + λ2·½‖x_c − x‖² + λ3·L_ε(x_c)
//	∇G = −λ1·∇log F(τ|x_c) + λ2·(x_c − x) + λ3·∇L_ε(x_c)
//
// given lp = log F(τ|x_c) and gradLp its gradient (from classAt, so the classifier's pass is
// shared with the attribution's). Weights per row let the candidates of automatic λ
// (Config.Auto) run as rows of one batch. noise (nil or [S, R, latent]) selects sampled codes
// in L_ε. The VAE's networks are recorded on t (nil: autodiff). It also returns L_ε's parts.
func objective(v *vae.VAE, t *backprop.Tape, lp, gradLp, xc, x0 *Node, lam lambdas, noise *Node) (g, grad *Node, parts vae.Parts) {
	d := Sub(xc, x0)
	prox := MulScalar(ReduceSum(Square(d), 1), 0.5)
	parts = v.LossPartsTaped(t, xc, noise)
	unc := v.Combine(parts, vae.Trained)
	l1, l2, l3 := lam.l1, lam.l2, lam.l3
	row := func(w *Node) *Node { return Reshape(w, -1) }
	g = Add(Add(Mul(row(l1), Neg(lp)), Mul(row(l2), prox)), Mul(row(l3), unc))
	gradUnc := t.Gradient(ReduceAllSum(unc), xc)
	grad = Add(Sub(Mul(l2, d), Mul(l1, gradLp)), Mul(l3, gradUnc))
	return g, grad, parts
}

// stackNodes returns the current points xc [R, J] followed by the quadrature nodes
// prev + t_k·(xc − prev) of the segment prev → xc, node by node, [R·(1+len(nodes)), J], and
// the targets [R, C] repeated alike.
func stackNodes(prev, xc, target *Node, nodes []float64) (pts, targets *Node) {
	k := len(nodes)
	if k == 0 {
		return xc, target
	}
	r, j, c := xc.Shape().Dimensions[0], xc.Shape().Dimensions[1], target.Shape().Dimensions[1]
	ts := make([][][]float64, k) // [k, 1, 1]
	for i, t := range nodes {
		ts[i] = [][]float64{{t}}
	}
	d := ExpandAxes(Sub(xc, prev), 0)
	at := Add(ExpandAxes(prev, 0), Mul(ConstAsDType(xc.Graph(), xc.DType(), ts), d)) // [k, R, J]
	pts = Concatenate([]*Node{xc, Reshape(at, k*r, j)}, 0)
	targets = Reshape(BroadcastToDims(ExpandAxes(target, 0), k+1, r, c), (k+1)*r, c)
	return pts, targets
}

// execKind says which graph to build.
type execKind struct {
	optimise bool      // false: measure only (no objective, no update)
	opt      Optimizer // with optimise
	samples  int       // with optimise: S latent samples in L_ε (0: the mean code)
	rule     Rule
	k        int
}

// stepVals are the inputs of one step over all rows, by name: T is *Node inside the program
// and a tensor or scalar outside (fields gives their order as the program's arguments).
//
//	prev, xc [R,J]: the segment just walked, ending at the current point xc; target [R,C]
//	(one-hot τ);
//	and, when optimising: x0 [R,J]; move [R,J] (1 where the feature may move and the row is
//	active); lo, hi [R,J] (bounds, standardised); m, v [R,J] (optimiser state); t (step,
//	from 1); lam [R,3] (each row's λ1, λ2, λ3); lr; and, when samples > 0, noise [S,R,latent].
type stepVals[T any] struct {
	prev, xc, target       T
	x0, move, lo, hi, m, v T
	t, lam, lr, noise      T
}

// fields are the inputs kind's program takes, in order.
func (s *stepVals[T]) fields(kind execKind) []*T {
	f := []*T{&s.prev, &s.xc, &s.target}
	if kind.optimise {
		f = append(f, &s.x0, &s.move, &s.lo, &s.hi, &s.m, &s.v, &s.t, &s.lam, &s.lr)
		if kind.samples > 0 {
			f = append(f, &s.noise)
		}
	}
	return f
}

// stepIn are a step's inputs inside the program.
type stepIn = stepVals[*Node]

// stepOuts are a step's outputs, by name: at xc, F(τ|xc) [R], its gradient [R,J], L_ε with
// the mean code in the trained and the paper's form [R]; the rule's interior gradient sum
// over prev → xc [R,J] (when it has interior nodes); and, when optimising, the objective
// [R] and the next xc, m, v. T is *Node inside the program, *tensors.Tensor outside.
type stepOuts[T any] struct {
	p, grad, unc, uncPaper, interior T
	obj, next, m, v                  T
}

// fields are the outputs kind's program returns, in order.
func (s *stepOuts[T]) fields(kind execKind) []*T {
	f := []*T{&s.p, &s.grad, &s.unc, &s.uncPaper}
	if len(kind.rule.interiorNodes(kind.k)) > 0 {
		f = append(f, &s.interior)
	}
	if kind.optimise {
		f = append(f, &s.obj, &s.next, &s.m, &s.v)
	}
	return f
}

// stepOut are a step's outputs inside the program (interior nil when the rule has no
// interior nodes).
type stepOut = stepOuts[*Node]

// stepResult are a step execution's outputs.
type stepResult = stepOuts[*tensors.Tensor]

// step builds one step over all rows (see stepIn and stepOut), with the objective's weights
// lam (in.lam split, by the caller: a loop whose weights do not change splits them before
// it): the graph of a step execution (stepGraph) and the body of the loop and replay
// engines' loops.
func (pr programs) step(kind execKind, in stepIn, lam lambdas) stepOut {
	nodes := kind.rule.interiorNodes(kind.k)
	clf, vm := pr.clf, pr.vae
	r, j := in.xc.Shape().Dimensions[0], in.xc.Shape().Dimensions[1]
	// One pass of the classifier for F and its gradient at xc (the attribution's and the
	// objective's) and at the segment's quadrature nodes.
	pts, targets := stackNodes(in.prev, in.xc, in.target, nodes)
	lpAll, pAll, gradLpAll := classAt(clf, pr.tape(), pts, targets)
	gradAll := gradF(pAll, gradLpAll)
	atXc := func(n *Node) *Node { return Slice(n, AxisRange(0, r)) }
	out := stepOut{p: atXc(pAll), grad: atXc(gradAll)}
	if len(nodes) > 0 {
		interior := Slice(gradAll, AxisRange(r, r*(1+len(nodes))))
		out.interior = ReduceSum(Reshape(interior, len(nodes), r, j), 0)
	}
	if !kind.optimise {
		parts := vm.LossParts(in.xc, nil)
		out.unc, out.uncPaper = vm.Combine(parts, vae.Trained), vm.Combine(parts, vae.Paper)
		return out
	}
	obj, gradObj, parts := objective(vm, pr.tape(), atXc(lpAll), atXc(gradLpAll), in.xc, in.x0, lam, in.noise)
	grad := Mul(gradObj, in.move)
	if in.noise != nil {
		// The reported uncertainty always uses the mean code.
		parts = vm.LossParts(in.xc, nil)
	}
	out.unc, out.uncPaper = vm.Combine(parts, vae.Trained), vm.Combine(parts, vae.Paper)
	out.obj = obj

	var update *Node
	m, v, t := in.m, in.v, in.t
	switch kind.opt {
	case Adam:
		out.m = Add(MulScalar(m, adamBeta1), MulScalar(grad, 1-adamBeta1))
		out.v = Add(MulScalar(v, adamBeta2), MulScalar(Square(grad), 1-adamBeta2))
		one := OnesLike(t)
		mHat := Div(out.m, Sub(one, Pow(ConstAs(t, adamBeta1), t)))
		vHat := Div(out.v, Sub(one, Pow(ConstAs(t, adamBeta2), t)))
		update = Div(mHat, AddScalar(Sqrt(vHat), adamEpsilon))
	case SGD:
		out.m = Add(MulScalar(m, 0.9), grad)
		out.v = v
		update = out.m
	default: // GD
		out.m, out.v, update = m, v, grad
	}
	// Min(Max()) rather than Clip: ONNX Runtime lacks Clamp with tensor bounds.
	out.next = pr.onSimplex(Min(Max(Sub(in.xc, Mul(Mul(in.lr, update), in.move)), in.lo), in.hi))
	return out
}

// stepGraph builds a step execution: stepVals in, stepOuts out (readStep names them).
func (pr programs) stepGraph(kind execKind) func([]*Node) []*Node {
	return func(args []*Node) []*Node {
		var in stepIn
		signature.Set(in.fields(kind), args)
		var lam lambdas // the weights, when optimising
		if kind.optimise {
			lam = splitLambdas(in.lam)
		}
		o := pr.step(kind, in, lam)
		return signature.Values(o.fields(kind))
	}
}

// stepArgs are a step execution's arguments, in order.
func stepArgs(kind execKind, in stepVals[any]) []any { return signature.Args(in.fields(kind)) }

// readStep names a step execution's outputs.
func readStep(kind execKind, out []*tensors.Tensor) stepResult {
	var r stepResult
	signature.Set(r.fields(kind), out)
	return r
}

// probeVals are the probe program's inputs, points x [R,J] and one-hot targets [R,C], by
// name (T is *Node inside the program, an argument outside).
type probeVals[T any] struct{ x, target T }

func (in *probeVals[T]) fields() []*T { return []*T{&in.x, &in.target} }

// probeOuts are the probe program's outputs, by name: F(τ|x) [R] and its gradient [R,J] (T
// is *Node inside the program, *tensors.Tensor outside).
type probeOuts[T any] struct{ p, grad T }

func (o *probeOuts[T]) fields() []*T { return []*T{&o.p, &o.grad} }

// probeGraph builds the probe program: probeVals in, probeOuts out.
func (pr programs) probeGraph(params []*Node) []*Node {
	var in probeVals[*Node]
	signature.Set(in.fields(), params)
	_, p, gradLp := classAt(pr.clf, pr.tape(), in.x, in.target)
	out := probeOuts[*Node]{p: p, grad: gradF(p, gradLp)}
	return signature.Values(out.fields())
}

// pointOuts are the points program's outputs at points x [R,J], by name: L_ε with the mean
// code in the trained and the paper's form [R], and the reconstruction r(x) [R,J]
// (dec(μ(x)), with a softmax over each categorical block). T is *Node inside the program,
// *tensors.Tensor outside.
type pointOuts[T any] struct{ unc, uncPaper, recon T }

func (o *pointOuts[T]) fields() []*T { return []*T{&o.unc, &o.uncPaper, &o.recon} }

// pointGraph builds the points program: points x [R,J] in, pointOuts out.
func (pr programs) pointGraph(x *Node) []*Node {
	p := pr.vae.LossParts(x, nil)
	out := pointOuts[*Node]{unc: pr.vae.Combine(p, vae.Trained), uncPaper: pr.vae.Combine(p, vae.Paper), recon: p.Recon}
	return signature.Values(out.fields())
}

// onSimplex rescales every categorical block of the rows x [R,J] (already inside [0, 1]) to
// sum to 1, so that a relaxed block is a mixture of categories. Without it the search could
// empty a block: the categorical likelihood −Σ x_k·log r_k is smallest when every x_k is 0,
// a row no data holds. Inputs outside blocks are divided by 1.
func (pr programs) onSimplex(x *Node) *Node {
	j := pr.numFeatures()
	same := make([][]float32, j) // same[f][g] = 1 when inputs f and g are in one block
	blocks := false
	for f := range same {
		same[f] = make([]float32, j)
	}
	outside := make([]float32, j)
	for _, c := range pr.cols {
		for f := c.Start; f < c.Start+c.Width; f++ {
			if c.Type != data.Categorical {
				outside[f] = 1
				continue
			}
			blocks = true
			for g := c.Start; g < c.Start+c.Width; g++ {
				same[f][g] = 1
			}
		}
	}
	if !blocks {
		return x
	}
	g := x.Graph()
	sums := Add(MatMul(x, Const(g, same)), Const(g, [][]float32{outside}))
	// A block that is all zero stays so rather than dividing by zero (it cannot happen from a
	// legal start: the coordinate that grows keeps the sum positive).
	return Div(x, Max(sums, ConstAs(sums, 1e-6)))
}

// objectiveVals are the objective program's inputs, by name: the points xc [R,J], the
// instances x0 [R,J], one-hot targets [R,C] and the weights lam [R,3] (T is *Node inside the
// program, an argument outside).
type objectiveVals[T any] struct{ xc, x0, target, lam T }

func (in *objectiveVals[T]) fields() []*T { return []*T{&in.xc, &in.x0, &in.target, &in.lam} }

// objectiveOuts are its outputs, by name: G [R] and its gradient [R,J].
type objectiveOuts[T any] struct{ g, grad T }

func (o *objectiveOuts[T]) fields() []*T { return []*T{&o.g, &o.grad} }

// objectiveGraph builds the objective program, G and its gradient at rows xc (used to check
// gradients): objectiveVals in, objectiveOuts out.
func (pr programs) objectiveGraph(params []*Node) []*Node {
	var in objectiveVals[*Node]
	signature.Set(in.fields(), params)
	lp, _, gradLp := classAt(pr.clf, pr.tape(), in.xc, in.target)
	var out objectiveOuts[*Node]
	out.g, out.grad, _ = objective(pr.vae, pr.tape(), lp, gradLp, in.xc, in.x0, splitLambdas(in.lam), nil)
	return signature.Values(out.fields())
}
