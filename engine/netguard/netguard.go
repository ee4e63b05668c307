// Package netguard owns aw's refusal of private-network destinations
// (SSRF): a net.Dialer whose Control hook checks the address every
// connection is about to reach — after DNS, on each connection, so every
// redirect hop and every re-resolved name is checked — and refuses
// loopback, private, link-local, unspecified, multicast and other
// non-public ranges, including their IPv4-mapped, IPv4-compatible, NAT64
// and 6to4 IPv6 spellings, unless the guard allows private networks.
//
// Use it in one of three ways:
//
//	g := netguard.Guard{AllowPrivate: ws.Settings.Research.AllowPrivateNetwork}
//	client := &http.Client{Transport: g.Transport()}     // an HTTP client
//	conn, err := g.DialContext(ctx, "tcp", "host:443")   // a raw dial (a proxy, say)
//	d := g.Dialer(); d.Timeout = 5 * time.Second         // your own transport
//
// CheckURL refuses a URL before any connection is made: schemes other than
// http and https, and hosts that are a blocked address written in any form
// (2130706433, 0x7f000001, 0177.1, [::ffff:127.0.0.1]). It also returns the
// URL with such a legacy numeric host rewritten to the dotted form, so the
// connection goes where the check looked. The dial check is the one that
// matters; CheckURL gives a clear error early.
//
// The guard never uses a proxy from the environment (HTTP_PROXY): behind a
// proxy the dialed address is the proxy's, and the check would see nothing.
// It decides nothing else: no allow lists of hosts, no policy beyond the
// address.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Guard decides which addresses a connection may reach.
type Guard struct {
	// AllowPrivate lets connections reach every blocked range (loopback,
	// private, link-local, ...). research.allowPrivateNetwork sets it.
	AllowPrivate bool
	// Allow lists prefixes that may be reached although they are blocked
	// (an intranet host a human vouched for; a test server on 127.0.0.2).
	Allow []netip.Prefix
	// Resolver, when set, resolves names for Dialer (tests use one that
	// answers every name with a loopback address).
	Resolver *net.Resolver
}

// BlockedError is the refusal of one address. errors.As finds it inside
// the *url.Error and *net.OpError that wrap it.
type BlockedError struct {
	Host     string     // what the caller asked for (a name or a literal), may be ""
	Addr     netip.Addr // the address that was refused
	Category string     // loopback, private, link-local, unspecified, multicast, reserved, ...
}

func (e *BlockedError) Error() string {
	if e.Host != "" && e.Host != e.Addr.String() {
		return fmt.Sprintf("%s resolves to %s, a %s address; connections to non-public addresses are refused", e.Host, e.Addr, e.Category)
	}
	return fmt.Sprintf("%s is a %s address; connections to non-public addresses are refused", e.Addr, e.Category)
}

// SchemeError refuses a URL scheme other than http and https.
type SchemeError struct{ Scheme string }

func (e *SchemeError) Error() string {
	return fmt.Sprintf("scheme %q is refused: only http and https URLs may be fetched", e.Scheme)
}

// Category names the range addr falls in, "" for a public address. IPv6
// forms that embed an IPv4 address (mapped ::ffff:a.b.c.d, compatible
// ::a.b.c.d, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16) are
// judged by the embedded address as well.
func Category(addr netip.Addr) string {
	addr = addr.WithZone("")
	if addr.Is4In6() {
		return Category(addr.Unmap())
	}
	if addr.Is6() {
		if v4, ok := embedded4(addr); ok {
			if c := Category(v4); c != "" {
				return c
			}
		}
	}
	switch {
	case !addr.IsValid():
		return "invalid"
	case addr.IsUnspecified():
		return "unspecified"
	case addr.IsLoopback():
		return "loopback"
	case addr.IsLinkLocalUnicast():
		return "link-local"
	case addr.IsMulticast(), addr.IsLinkLocalMulticast(), addr.IsInterfaceLocalMulticast():
		return "multicast"
	case addr.IsPrivate():
		return "private"
	}
	for _, r := range reserved {
		if r.prefix.Contains(addr) {
			return r.category
		}
	}
	return ""
}

// reserved are the ranges the netip predicates do not cover.
var reserved = []struct {
	prefix   netip.Prefix
	category string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"}, // "this network": 0.x.y.z reaches the local host on Linux
	{netip.MustParsePrefix("100.64.0.0/10"), "private"}, // carrier-grade NAT, used for internal overlays
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved"},
	{netip.MustParsePrefix("192.0.2.0/24"), "reserved"}, // documentation
	{netip.MustParsePrefix("198.18.0.0/15"), "reserved"},
	{netip.MustParsePrefix("198.51.100.0/24"), "reserved"},
	{netip.MustParsePrefix("203.0.113.0/24"), "reserved"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // includes 255.255.255.255 broadcast
	{netip.MustParsePrefix("::/96"), "reserved"},       // IPv4-compatible (deprecated)
	{netip.MustParsePrefix("100::/64"), "reserved"},    // discard-only
	{netip.MustParsePrefix("2001:db8::/32"), "reserved"},
	{netip.MustParsePrefix("fec0::/10"), "private"}, // site-local (deprecated)
}

var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16")
	compat     = netip.MustParsePrefix("::/96")
)

// embedded4 extracts the IPv4 address an IPv6 form carries.
func embedded4(a netip.Addr) (netip.Addr, bool) {
	b := a.As16()
	switch {
	case nat64.Contains(a), nat64Local.Contains(a), compat.Contains(a) && !a.IsUnspecified() && !a.IsLoopback():
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

// Check returns a *BlockedError when addr may not be reached.
func (g Guard) Check(host string, addr netip.Addr) error {
	if g.AllowPrivate {
		return nil
	}
	for _, p := range g.Allow {
		if p.Contains(addr.WithZone("").Unmap()) {
			return nil
		}
	}
	if c := Category(addr); c != "" {
		return &BlockedError{Host: host, Addr: addr.WithZone(""), Category: c}
	}
	return nil
}

// Control is a net.Dialer Control hook: it runs after DNS, once per
// connection attempt, with the literal address being dialed.
func (g Guard) Control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		// Not an IP:port (a unix socket, say): nothing aw dials.
		return fmt.Errorf("netguard: refusing to dial %s %q: not an IP address", network, address)
	}
	return g.Check("", ap.Addr())
}

// Dialer returns a net.Dialer with the guard's Control hook and a 10 s
// connect timeout. Keep Control when changing it.
func (g Guard) Dialer() *net.Dialer {
	return &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: g.Control, Resolver: g.Resolver}
}

// DialContext dials through the guard. A refusal names the host that was
// asked for as well as the address it resolved to.
func (g Guard) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	conn, err := g.Dialer().DialContext(ctx, network, address)
	var b *BlockedError
	if err != nil && errors.As(err, &b) {
		host, _, _ := net.SplitHostPort(address)
		return nil, &BlockedError{Host: host, Addr: b.Addr, Category: b.Category}
	}
	return conn, err
}

// Transport returns an http.Transport that dials through the guard, never
// through an environment proxy, with bounded handshakes.
func (g Guard) Transport() *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
		MaxIdleConns:          10,
		IdleConnTimeout:       30 * time.Second,
	}
}

// CheckURL refuses what can be refused before dialing: a scheme other than
// http/https, a missing host, credentials in the URL, and a host that is a
// blocked address in any numeric spelling. It returns a copy of u whose
// host is normalized (legacy IPv4 forms such as 2130706433 or 0x7f.1
// rewritten to dotted decimal) so the dial goes where the check looked.
func (g Guard) CheckURL(u *url.URL) (*url.URL, error) {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, &SchemeError{Scheme: u.Scheme}
	}
	host := u.Hostname()
	if host == "" {
		return nil, fmt.Errorf("%s has no host", u.Redacted())
	}
	out := *u
	out.Scheme = scheme
	if addr, ok := ParseHost(host); ok {
		if err := g.Check(host, addr); err != nil {
			return nil, err
		}
		h := addr.String()
		if addr.Is6() {
			h = "[" + h + "]"
		}
		if p := u.Port(); p != "" {
			h += ":" + p
		}
		out.Host = h
	}
	return &out, nil
}

// ParseHost reads a URL host that is an IP address: IPv6 literals and
// every IPv4 spelling the C library's inet_aton (and so curl and many
// resolvers) accepts — 1 to 4 parts, each decimal, octal (leading 0) or
// hex (0x). A trailing dot is ignored.
func ParseHost(host string) (netip.Addr, bool) {
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if a, err := netip.ParseAddr(host); err == nil {
		return a, true
	}
	parts := strings.Split(host, ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseNum(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	// The last part fills the remaining bytes: a.b.c.d, a.b.c16, a.b24, a32.
	var n uint64
	last := len(vals) - 1
	for i, v := range vals[:last] {
		if v > 255 {
			return netip.Addr{}, false
		}
		n |= v << (8 * (3 - i))
	}
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	n |= vals[last]
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

func parseNum(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
		base, p = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, p = 8, p[1:]
	}
	v, err := strconv.ParseUint(p, base, 32)
	if err != nil {
		return 0, false
	}
	return v, true
}
