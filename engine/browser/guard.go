package browser

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/agentic-workspace/aw/engine/envelope"
	"github.com/agentic-workspace/aw/engine/netguard"
)

// Guard decides where the browser may go (issue 6's SSRF rule), with
// engine/netguard's address rules: http and https only, and, unless
// research.allowPrivateNetwork is on, never a loopback, private,
// link-local, unspecified or otherwise non-public address. Chromium does
// its own DNS, so the guard resolves each host itself and judges every
// address the name has (one private address among public ones refuses the
// name: Chromium may pick any). Verdicts are cached for one aw call, so a
// page with a hundred images on one host costs one lookup.
type Guard struct {
	AllowPrivate bool

	ng      netguard.Guard
	mu      sync.Mutex
	verdict map[string]error
	blocked []string
}

// NewGuard returns the guard of one call.
func NewGuard(allowPrivate bool) *Guard {
	return &Guard{AllowPrivate: allowPrivate, ng: netguard.Guard{AllowPrivate: allowPrivate}, verdict: map[string]error{}}
}

// CheckNavigation checks a URL the caller asked to navigate to, before
// Chromium sees it, and returns it with a numeric host normalized
// (2130706433 → 127.0.0.1) so Chromium goes where the check looked.
func (g *Guard) CheckNavigation(ctx context.Context, raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || !u.IsAbs() {
		return "", envelope.Errorf(envelope.InvalidInput, "%q is not an absolute URL; pass an http or https URL such as https://example.com/", raw).With("url", raw)
	}
	n, err := g.ng.CheckURL(u)
	if err != nil {
		return "", refusal(raw, err)
	}
	if err := g.CheckHost(ctx, n.Hostname()); err != nil {
		return "", err
	}
	return n.String(), nil
}

// CheckHost refuses a host that is, or resolves to, a blocked address.
func (g *Guard) CheckHost(ctx context.Context, host string) error {
	if g.AllowPrivate {
		return nil
	}
	g.mu.Lock()
	err, seen := g.verdict[host]
	g.mu.Unlock()
	if seen {
		return err
	}
	err = g.checkHost(ctx, host)
	g.mu.Lock()
	g.verdict[host] = err
	g.mu.Unlock()
	return err
}

func (g *Guard) checkHost(ctx context.Context, host string) error {
	var addrs []netip.Addr
	if a, ok := netguard.ParseHost(host); ok {
		addrs = []netip.Addr{a}
	} else {
		lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		ips, err := net.DefaultResolver.LookupNetIP(lctx, "ip", strings.TrimSuffix(host, "."))
		if err != nil {
			return envelope.Errorf(envelope.NetworkError, "cannot resolve %s: %v; check the host name", host, err).With("host", host)
		}
		addrs = ips
	}
	for _, a := range addrs {
		if err := g.ng.Check(host, a); err != nil {
			return refusal(host, err)
		}
	}
	return nil
}

// refusal is the envelope error of a netguard refusal (the same codes and
// details as research fetch).
func refusal(where string, err error) error {
	var se *netguard.SchemeError
	if errors.As(err, &se) {
		return envelope.Errorf(envelope.InvalidInput, "%s: the browser only visits http and https URLs (%s); pass an http or https URL", where, se.Error()).
			With("url", where).With("reason", "scheme")
	}
	var be *netguard.BlockedError
	if errors.As(err, &be) {
		return envelope.Errorf(envelope.NetworkError, "%s refused: %s. This guards against the browser reaching this machine and its private network (SSRF); only a human can allow it, with `aw config set research.allowPrivateNetwork true`", where, be.Error()).
			With("url", where).With("reason", "private-address").With("address", be.Addr.String()).With("category", be.Category).With("setting", "research.allowPrivateNetwork")
	}
	return envelope.Errorf(envelope.InvalidInput, "%s: %v; pass an absolute http or https URL", where, err).With("url", where)
}

// block records a request the guard failed, for the envelope.
func (g *Guard) block(u string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.blocked) < 50 {
		g.blocked = append(g.blocked, u)
	}
}

// Blocked lists the requests the guard refused during the call.
func (g *Guard) Blocked() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.blocked...)
}
