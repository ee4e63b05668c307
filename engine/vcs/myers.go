package vcs

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// lineDiff marks changed lines of a and b (git's rchg arrays): Myers'
// O(ND) algorithm, then git's group compaction (xdl_change_compact
// without the indent heuristic), so hunks come out where git puts them.
type lineDiff struct {
	a, b       [][]byte
	ida, idb   []int
	rchA, rchB []bool // len+2, index 0 and len+1 are sentinels
}

// maxEditCost bounds Myers' work; past it the rest is one replacement.
const maxEditCost = 1500

func splitLines(b []byte) [][]byte {
	if len(b) == 0 {
		return nil
	}
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

func newLineDiff(a, b []byte) *lineDiff {
	d := &lineDiff{a: splitLines(a), b: splitLines(b)}
	ids := map[string]int{}
	id := func(l []byte) int {
		if v, ok := ids[string(l)]; ok {
			return v
		}
		ids[string(l)] = len(ids)
		return len(ids) - 1
	}
	d.ida = make([]int, len(d.a))
	for i, l := range d.a {
		d.ida[i] = id(l)
	}
	d.idb = make([]int, len(d.b))
	for i, l := range d.b {
		d.idb[i] = id(l)
	}
	d.rchA = make([]bool, len(d.a)+2)
	d.rchB = make([]bool, len(d.b)+2)
	d.run()
	d.compact(d.rchA, d.ida, d.rchB)
	d.compact(d.rchB, d.idb, d.rchA)
	return d
}

func (d *lineDiff) run() {
	n, m := len(d.a), len(d.b)
	lo := 0
	for lo < n && lo < m && d.ida[lo] == d.idb[lo] {
		lo++
	}
	ha, hb := n, m
	for ha > lo && hb > lo && d.ida[ha-1] == d.idb[hb-1] {
		ha--
		hb--
	}
	A, B := d.ida[lo:ha], d.idb[lo:hb]
	N, M := len(A), len(B)
	if N == 0 || M == 0 {
		for i := lo; i < ha; i++ {
			d.rchA[i+1] = true
		}
		for i := lo; i < hb; i++ {
			d.rchB[i+1] = true
		}
		return
	}
	max := N + M
	off := max + 1
	v := make([]int, 2*max+3)
	var trace [][]int
	found := false
	var D int
	for D = 0; D <= max && D <= maxEditCost; D++ {
		snap := make([]int, 2*D+3)
		copy(snap, v[off-D-1:off+D+2])
		trace = append(trace, snap)
		for k := -D; k <= D; k += 2 {
			var x int
			if k == -D || (k != D && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < N && y < M && A[x] == B[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= N && y >= M {
				found = true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		for i := lo; i < ha; i++ {
			d.rchA[i+1] = true
		}
		for i := lo; i < hb; i++ {
			d.rchB[i+1] = true
		}
		return
	}
	// Walk the trace back from (N, M).
	x, y := N, M
	for D := len(trace) - 1; D > 0; D-- {
		vs := trace[D] // v before step D, indices k+D+1
		get := func(k int) int { return vs[k+D+1] }
		k := x - y
		var pk int
		if k == -D || (k != D && get(k-1) < get(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := get(pk)
		py := px - pk
		for x > px && y > py && (x > px+boolInt(pk == k-1)) && (y > py+boolInt(pk == k+1)) {
			x--
			y--
		}
		if pk == k+1 {
			d.rchB[lo+py+1] = true // insertion of B[py]
		} else {
			d.rchA[lo+px+1] = true // deletion of A[px]
		}
		x, y = px, py
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// compact is git's xdl_change_compact (no indent heuristic): each group of
// changes slides as far down as it can, unless it can line up with a
// group in the other file. rch is 1-based with sentinels.
func (d *lineDiff) compact(rch []bool, ids []int, other []bool) {
	n := len(rch) - 2
	no := len(other) - 2
	at := func(r []bool, i int) bool { return r[i+1] } // 0-based view
	set := func(r []bool, i int, v bool) { r[i+1] = v }
	type group struct{ start, end int }
	initG := func(r []bool) group {
		g := group{}
		for at(r, g.end) {
			g.end++
		}
		return g
	}
	next := func(r []bool, nr int, g *group) bool {
		if g.end == nr {
			return false
		}
		g.start = g.end + 1
		g.end = g.start
		for at(r, g.end) {
			g.end++
		}
		return true
	}
	prev := func(r []bool, g *group) bool {
		if g.start == 0 {
			return false
		}
		g.end = g.start - 1
		g.start = g.end
		for at(r, g.start-1) {
			g.start--
		}
		return true
	}
	slideDown := func(g *group) bool {
		if g.end < n && ids[g.start] == ids[g.end] {
			set(rch, g.start, false)
			g.start++
			set(rch, g.end, true)
			g.end++
			for at(rch, g.end) {
				g.end++
			}
			return true
		}
		return false
	}
	slideUp := func(g *group) bool {
		if g.start > 0 && ids[g.start-1] == ids[g.end-1] {
			g.start--
			set(rch, g.start, true)
			g.end--
			set(rch, g.end, false)
			for at(rch, g.start-1) {
				g.start--
			}
			return true
		}
		return false
	}
	g := initG(rch)
	gO := initG(other)
	for {
		if g.end != g.start {
			var groupsize, earliestEnd, endMatchingOther int
			for {
				groupsize = g.end - g.start
				endMatchingOther = -1
				for slideUp(&g) {
					prev(other, &gO)
				}
				earliestEnd = g.end
				if gO.end > gO.start {
					endMatchingOther = g.end
				}
				for slideDown(&g) {
					next(other, no, &gO)
					if gO.end > gO.start {
						endMatchingOther = g.end
					}
				}
				if groupsize == g.end-g.start {
					break
				}
			}
			if g.end != earliestEnd && endMatchingOther != -1 {
				for gO.end == gO.start {
					slideUp(&g)
					prev(other, &gO)
				}
			}
		}
		if !next(rch, n, &g) {
			break
		}
		next(other, no, &gO)
	}
}

// unified writes git's hunks (3 lines of context, function context from
// git's default funcname rule) for a and b into w.
func (d *lineDiff) unified(w *bytes.Buffer) (adds, dels int) {
	const ctx = 3
	type span struct{ i1, chg1, i2, chg2 int }
	var spans []span
	na, nb := len(d.a), len(d.b)
	i, j := 0, 0
	for i < na || j < nb {
		if (i < na && d.rchA[i+1]) || (j < nb && d.rchB[j+1]) {
			s := span{i1: i, i2: j}
			for i < na && d.rchA[i+1] {
				i++
			}
			for j < nb && d.rchB[j+1] {
				j++
			}
			s.chg1, s.chg2 = i-s.i1, j-s.i2
			spans = append(spans, s)
			continue
		}
		i++
		j++
	}
	funcPrev := -1
	var funcLine []byte
	for k := 0; k < len(spans); {
		first := k
		for k+1 < len(spans) && spans[k+1].i1-(spans[k].i1+spans[k].chg1) <= 2*ctx {
			k++
		}
		last := spans[k]
		k++
		s1 := max(spans[first].i1-ctx, 0)
		s2 := max(spans[first].i2-ctx, 0)
		e1 := min(last.i1+last.chg1+ctx, na)
		e2 := min(last.i2+last.chg2+ctx, nb)
		for l := s1 - 1; l != funcPrev && l >= 0; l-- {
			if f, ok := funcName(d.a[l]); ok {
				funcLine = f
				break
			}
		}
		funcPrev = s1 - 1
		w.WriteString("@@ -")
		w.WriteString(rangeStr(s1, e1-s1))
		w.WriteString(" +")
		w.WriteString(rangeStr(s2, e2-s2))
		w.WriteString(" @@")
		if len(funcLine) > 0 {
			w.WriteByte(' ')
			w.Write(funcLine)
		}
		w.WriteByte('\n')
		a, b := s1, s2
		for a < e1 || b < e2 {
			switch {
			case a < e1 && d.rchA[a+1]:
				writeLine(w, '-', d.a[a])
				dels++
				a++
			case b < e2 && d.rchB[b+1]:
				writeLine(w, '+', d.b[b])
				adds++
				b++
			default:
				writeLine(w, ' ', d.a[a])
				a++
				b++
			}
		}
	}
	return adds, dels
}

func rangeStr(s, c int) string {
	if c == 0 {
		return strconv.Itoa(s) + ",0"
	}
	if c == 1 {
		return strconv.Itoa(s + 1)
	}
	return fmt.Sprintf("%d,%d", s+1, c)
}

func writeLine(w *bytes.Buffer, mark byte, l []byte) {
	w.WriteByte(mark)
	w.Write(l)
	if len(l) == 0 || l[len(l)-1] != '\n' {
		w.WriteString("\n\\ No newline at end of file\n")
	}
}

// funcName is git's default funcname rule (xdiff def_ff): a line starting
// with a letter, '_' or '$', cut to 80 bytes, trailing space trimmed.
func funcName(l []byte) ([]byte, bool) {
	if len(l) == 0 {
		return nil, false
	}
	c := l[0]
	if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$') {
		return nil, false
	}
	if len(l) > 80 {
		l = l[:80]
	}
	return []byte(strings.TrimRight(string(l), " \t\r\n\v\f")), true
}
