package quce

import (
	. "github.com/gomlx/gomlx/core/graph"

	"github.com/quce-go/quce/backprop"
	"github.com/quce-go/quce/data"
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

// probAndGrad returns log F(τ|x) and F(τ|x) [R], and the gradient of F with respect to x
// [R, J], with the classifier recorded on t (nil: autodiff).
func probAndGrad(clf *Classifier, t *backprop.Tape, x, target *Node) (lp, p, grad *Node) {
	lp = clf.targetLogProb(t, x, target)
	p = Exp(lp)
	return lp, p, t.Gradient(ReduceAllSum(p), x)
}

// objective is G(x_c) per row, with each row's weights in lam [R, 3] = (λ1, λ2, λ3):
// λ1·(−log F(τ|x_c)) + λ2·½‖x_c − x‖² + λ3·L_ε(x_c), given lp = log F(τ|x_c). Weights per
// row let the candidates of automatic λ (Config.Auto) run as rows of one batch. noise (nil or
// [S, R, latent]) selects sampled codes in L_ε. The VAE's networks are recorded on t (nil:
// autodiff). It also returns L_ε's parts.
func objective(v *vae.VAE, t *backprop.Tape, lp, xc, x0, lam, noise *Node) (g *Node, parts vae.Parts) {
	nll := Neg(lp)
	prox := MulScalar(ReduceSum(Square(Sub(xc, x0)), 1), 0.5)
	parts = v.LossPartsTaped(t, xc, noise)
	unc := v.Combine(parts, vae.Trained)
	weight := func(i int) *Node { return Reshape(Slice(lam, AxisRange(), AxisElem(i)), -1) }
	l1, l2, l3 := weight(0), weight(1), weight(2)
	g = Add(Add(Mul(l1, nll), Mul(l2, prox)), Mul(l3, unc))
	return g, parts
}

// interiorGradSum is Σ_k ∇F(τ|prev + t_k·(xc − prev)) over the quadrature nodes t_k of
// the segment prev → xc, [R, J]: the only gradients a rule needs beyond the path points.
func interiorGradSum(clf *Classifier, t *backprop.Tape, prev, xc, target *Node, nodes []float64) *Node {
	d := Sub(xc, prev)
	pts := make([]*Node, len(nodes))
	targets := make([]*Node, len(nodes))
	for i, t := range nodes {
		pts[i] = Add(prev, MulScalar(d, t))
		targets[i] = target
	}
	all := Concatenate(pts, 0)
	_, _, g := probAndGrad(clf, t, all, Concatenate(targets, 0))
	r, j := xc.Shape().Dimensions[0], xc.Shape().Dimensions[1]
	return ReduceSum(Reshape(g, len(nodes), r, j), 0)
}

// execKind says which graph to build.
type execKind struct {
	optimise bool      // false: measure only (no objective, no update)
	opt      Optimizer // with optimise
	samples  int       // with optimise: S latent samples in L_ε (0: the mean code)
	rule     Rule
	k        int
	small    bool // for at most smallBatchRows rows (see Explainer.SmallBatch)
}

// stepGraph builds one execution over all rows. Inputs, in order:
//
//	prev, xc [R,J]: the segment just walked, ending at the current point xc; target [R,C]
//	(one-hot τ);
//	and, when optimising: x0 [R,J]; move [R,J] (1 where the feature may move and the row is
//	active); lo, hi [R,J] (bounds, standardised); m, v [R,J] (optimiser state); t (step,
//	from 1); lam [R,3] (each row's λ1, λ2, λ3); lr; and, when samples > 0, noise [S,R,latent].
//
// Outputs: at xc, F(τ|xc) [R], its gradient [R,J], L_ε with the mean code in the trained
// and the paper's form [R]; the rule's interior gradient sum over prev → xc [R,J] when it
// has interior nodes; and, when optimising, the objective [R] and the next xc, m, v.
func (e *Explainer) stepGraph(kind execKind) func([]*Node) []*Node {
	nodes := kind.rule.interiorNodes(kind.k)
	return func(in []*Node) []*Node {
		prev, xc, target := in[0], in[1], in[2]
		clf, vm := e.clf, e.vae
		// The objective's gradient shares the classifier at xc with F's (one tape).
		tape := e.tape()
		lp, p, gradP := probAndGrad(clf, tape, xc, target)
		out := []*Node{p, gradP, nil, nil}
		if len(nodes) > 0 {
			out = append(out, interiorGradSum(clf, e.tape(), prev, xc, target, nodes))
		}
		if !kind.optimise {
			parts := vm.LossParts(xc, nil)
			out[2], out[3] = vm.Combine(parts, vae.Trained), vm.Combine(parts, vae.Paper)
			return out
		}
		x0, move, lo, hi, m, v, t, lam, lr := in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[10], in[11]
		var noise *Node
		if kind.samples > 0 {
			noise = in[12]
		}
		obj, parts := objective(vm, tape, lp, xc, x0, lam, noise)
		grad := Mul(tape.Gradient(ReduceAllSum(obj), xc), move)
		if noise != nil {
			// The reported uncertainty always uses the mean code.
			parts = vm.LossParts(xc, nil)
		}
		out[2], out[3] = vm.Combine(parts, vae.Trained), vm.Combine(parts, vae.Paper)

		var update, newM, newV *Node
		switch kind.opt {
		case Adam:
			newM = Add(MulScalar(m, adamBeta1), MulScalar(grad, 1-adamBeta1))
			newV = Add(MulScalar(v, adamBeta2), MulScalar(Square(grad), 1-adamBeta2))
			one := OnesLike(t)
			mHat := Div(newM, Sub(one, Pow(ConstAs(t, adamBeta1), t)))
			vHat := Div(newV, Sub(one, Pow(ConstAs(t, adamBeta2), t)))
			update = Div(mHat, AddScalar(Sqrt(vHat), adamEpsilon))
		case SGD:
			newM = Add(MulScalar(m, 0.9), grad)
			newV = v
			update = newM
		default: // GD
			newM, newV, update = m, v, grad
		}
		// Min(Max()) rather than Clip: ONNX Runtime lacks Clamp with tensor bounds.
		newXc := e.onSimplex(Min(Max(Sub(xc, Mul(Mul(lr, update), move)), lo), hi))
		return append(out, obj, newXc, newM, newV)
	}
}

// probeGraph returns F(τ|x) [R] and its gradient [R,J] at points [R,J] with one-hot
// targets [R,C].
func (e *Explainer) probeGraph(x, target *Node) (*Node, *Node) {
	_, p, grad := probAndGrad(e.clf, e.tape(), x, target)
	return p, grad
}

// classGraph returns log F(c|x) [R,C] and the model's own outputs [R,C] (to check that
// declared probabilities are probabilities).
func (e *Explainer) classGraph(x *Node) (*Node, *Node) {
	return e.clf.LogProbs(x), e.clf.rawOutputs(x)
}

// pointGraph returns, at points [R,J]: L_ε with the mean code in the trained and the
// paper's form [R], and the reconstruction r(x) [R,J] (dec(μ(x)), with a softmax over each
// categorical block).
func (e *Explainer) pointGraph(x *Node) (*Node, *Node, *Node) {
	p := e.vae.LossParts(x, nil)
	return e.vae.Combine(p, vae.Trained), e.vae.Combine(p, vae.Paper), p.Recon
}

// onSimplex rescales every categorical block of the rows x [R,J] (already inside [0, 1]) to
// sum to 1, so that a relaxed block is a mixture of categories. Without it the search could
// empty a block: the categorical likelihood −Σ x_k·log r_k is smallest when every x_k is 0,
// a row no data holds. Inputs outside blocks are divided by 1.
func (e *Explainer) onSimplex(x *Node) *Node {
	j := e.NumFeatures()
	same := make([][]float32, j) // same[f][g] = 1 when inputs f and g are in one block
	blocks := false
	for f := range same {
		same[f] = make([]float32, j)
	}
	outside := make([]float32, j)
	for _, c := range e.cols {
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

// objectiveGraph returns G and its gradient for rows xc (used to check gradients).
func (e *Explainer) objectiveGraph(in []*Node) []*Node {
	xc, x0, target, lam := in[0], in[1], in[2], in[3]
	t := e.tape()
	obj, _ := objective(e.vae, t, e.clf.targetLogProb(t, xc, target), xc, x0, lam, nil)
	return []*Node{obj, t.Gradient(ReduceAllSum(obj), xc)}
}
