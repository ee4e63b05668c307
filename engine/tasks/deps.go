package tasks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/store"
)

// The dependency rules:
//   - a reference is an item_ id of the board, or, inside the create/add
//     call that mints the items, a 1-based position "1", "2", … naming an
//     item of that same call (forward references allowed);
//   - a position outside 1..n, a position naming its own item, a real cycle,
//     an unknown item_ id and anything that is neither a position nor an
//     item_ id each fail INVALID_INPUT naming the reference;
//   - update takes item_ ids only: a position there fails INVALID_INPUT
//     saying positions are valid only inside the create/add call.

// isPosition reports whether ref is written as a position (ASCII digits).
func isPosition(ref string) bool {
	if ref == "" {
		return false
	}
	for _, c := range ref {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func neither(where, ref string) error {
	return envelope.Errorf(envelope.InvalidInput,
		"%s depends_on %q is neither a 1-based position of this call nor an item_ id; name an item by its item_ id (`aw tasks show` lists them) or, inside create/add, by its position in the call", where, ref).With("reference", ref)
}

func unknown(where, ref, boardID string) error {
	return envelope.Errorf(envelope.InvalidInput,
		"%s depends_on %q: board %s has no such item; `aw tasks show %s` lists its item ids", where, ref, boardID, boardID).With("reference", ref)
}

// resolveBatch resolves the depends_on of the items of one create/add call.
// ids[i] is the id minted for the call's item i; b is the board before the
// call. It returns the resolved lists, deduplicated in order.
func resolveBatch(b *Board, specs []ItemSpec, ids []string) ([][]string, error) {
	out := make([][]string, len(specs))
	n := len(specs)
	for i, spec := range specs {
		where := fmt.Sprintf("item %d", i+1)
		deps := []string{}
		seen := map[string]bool{}
		for _, ref := range spec.DependsOn {
			var id string
			switch {
			case isPosition(ref):
				p, err := strconv.Atoi(ref)
				if err != nil || p < 1 || p > n {
					return nil, envelope.Errorf(envelope.InvalidInput,
						"%s depends_on %q: position %s is outside 1..%d; a position names an item of this same call (the call has %d)", where, ref, ref, n, n).With("reference", ref)
				}
				if p == i+1 {
					return nil, envelope.Errorf(envelope.InvalidInput,
						"%s depends_on %q names the item itself; an item cannot depend on itself", where, ref).With("reference", ref)
				}
				id = ids[p-1]
			case store.ValidID(ref, "item"):
				if b.index(ref) < 0 {
					return nil, unknown(where, ref, b.ID)
				}
				id = ref
			default:
				return nil, neither(where, ref)
			}
			if !seen[id] {
				seen[id] = true
				deps = append(deps, id)
			}
		}
		out[i] = deps
	}
	return out, nil
}

// resolveUpdate resolves the depends_on that update sets on item id.
func resolveUpdate(b *Board, id string, refs []string) ([]string, error) {
	where := "update of " + id + ":"
	deps := []string{}
	seen := map[string]bool{}
	for _, ref := range refs {
		switch {
		case isPosition(ref):
			return nil, envelope.Errorf(envelope.InvalidInput,
				"%s depends_on %q is a position: positions are valid only inside the create/add call that mints the items; update takes item_ ids (`aw tasks show %s` lists them)", where, ref, b.ID).With("reference", ref)
		case store.ValidID(ref, "item"):
			if ref == id {
				return nil, envelope.Errorf(envelope.InvalidInput,
					"%s depends_on %q names the item itself; an item cannot depend on itself", where, ref).With("reference", ref)
			}
			if b.index(ref) < 0 {
				return nil, unknown(where, ref, b.ID)
			}
		default:
			return nil, neither(where, ref)
		}
		if !seen[ref] {
			seen[ref] = true
			deps = append(deps, ref)
		}
	}
	return deps, nil
}

// findCycle returns a dependency cycle among items as a closed path
// (first == last), or nil. Items are visited in board order, so the answer
// is deterministic.
func findCycle(items []Item) []string {
	deps := make(map[string][]string, len(items))
	for _, it := range items {
		deps[it.ID] = it.DependsOn
	}
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var cycle []string
	var visit func(id string) bool
	visit = func(id string) bool {
		color[id] = grey
		stack = append(stack, id)
		for _, d := range deps[id] {
			switch color[d] {
			case grey:
				for i, s := range stack {
					if s == d {
						cycle = append(append([]string{}, stack[i:]...), d)
						return true
					}
				}
			case white:
				if visit(d) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[id] = black
		return false
	}
	for _, it := range items {
		if color[it.ID] == white && visit(it.ID) {
			return cycle
		}
	}
	return nil
}

// cycleError names the cycle and the reference that closes it. label turns
// an id into what the caller wrote (a position for a minted item); ref
// returns the depends_on entry of from that named to.
func cycleError(cycle []string, label func(id string) string, ref func(from, to string) string) error {
	parts := make([]string, len(cycle))
	for i, id := range cycle {
		parts[i] = label(id)
	}
	from, to := cycle[len(cycle)-2], cycle[len(cycle)-1]
	r := ref(from, to)
	return envelope.Errorf(envelope.InvalidInput,
		"depends_on %q of %s makes a cycle: %s; dependencies must stay acyclic, so drop one of these references",
		r, label(from), strings.Join(parts, " → ")).With("reference", r).With("cycle", parts)
}
