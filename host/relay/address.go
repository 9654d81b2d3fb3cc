package relay

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
)

// class is the kind of network an IP address belongs to, as far as the
// relay's connection rules care.
type class int

const (
	public class = iota
	loopback
	private     // 10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, fec0::/10
	linkLocal   // 169.254/16, fe80::/10
	metadata    // cloud instance metadata services
	unspecified // 0.0.0.0/8, ::
	multicast   // 224/4, ff00::/8, and the 255.255.255.255 broadcast
)

var (
	cgnat      = netip.MustParsePrefix("100.64.0.0/10")
	siteLocal  = netip.MustParsePrefix("fec0::/10")
	thisNet    = netip.MustParsePrefix("0.0.0.0/8")
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	compatible = netip.MustParsePrefix("::/96")
	broadcast  = netip.MustParseAddr("255.255.255.255")
	// Metadata endpoints outside 169.254/16, which is refused as a whole.
	metadataAddrs = map[netip.Addr]bool{
		netip.MustParseAddr("fd00:ec2::254"):   true, // AWS over IPv6
		netip.MustParseAddr("100.100.100.200"): true, // Alibaba Cloud
		netip.MustParseAddr("192.0.0.192"):     true, // Oracle Cloud
	}
)

// classify names the network of a. IPv6 forms that carry an IPv4 address
// (::ffff:a.b.c.d, ::a.b.c.d, and NAT64's 64:ff9b::a.b.c.d, which a NAT64
// gateway turns back into a.b.c.d) are judged by that IPv4 address.
func classify(a netip.Addr) class {
	a = a.WithZone("").Unmap()
	if a.Is6() && (nat64.Contains(a) || compatible.Contains(a) && !a.IsUnspecified() && !a.IsLoopback()) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	switch {
	case metadataAddrs[a]:
		return metadata
	case a.IsUnspecified() || thisNet.Contains(a):
		return unspecified
	case a.IsMulticast() || a == broadcast:
		return multicast
	case a.IsLinkLocalUnicast():
		return linkLocal
	case a.IsLoopback():
		return loopback
	case a.IsPrivate() || cgnat.Contains(a) || siteLocal.Contains(a):
		return private
	}
	return public
}

// refusedAddress is the error of a connection the relay would not open: the
// address is of a class the relay never dials, or a private one whose origin
// is not listed in relay.allow.
type refusedAddress struct {
	addr  netip.Addr
	class class
}

func (e *refusedAddress) Error() string {
	if e.class == private {
		return fmt.Sprintf("%s is a private-network address; list this base URL in relay.allow of the host configuration to reach it", e.addr)
	}
	return fmt.Sprintf("%s is %s address; the relay never connects to such addresses", e.addr, map[class]string{
		linkLocal:   "a link-local (cloud metadata)",
		metadata:    "a cloud metadata service",
		unspecified: "an unspecified",
		multicast:   "a multicast or broadcast",
	}[e.class])
}

// checkDialled decides on the address a connection is about to be opened
// to, after name resolution: loopback and public addresses pass, private ones
// only when privateOK, anything else never.
func checkDialled(address string, privateOK bool) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("cannot judge the address %q: %w", address, err)
	}
	switch c := classify(ap.Addr()); c {
	case public, loopback:
		return nil
	case private:
		if privateOK {
			return nil
		}
		fallthrough
	default:
		return &refusedAddress{ap.Addr(), c}
	}
}

// dial opens the connection for one origin ("host:port"). The address is
// judged in the dialer's Control hook, so it is the one actually connected
// to, whatever the name resolved to.
func (r *Relay) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	privateOK := r.policy.lists(addr)
	if host, port, err := net.SplitHostPort(addr); err == nil {
		if ip, ok := r.hosts[host]; ok {
			addr = net.JoinHostPort(ip, port)
		}
	}
	d := net.Dialer{
		Timeout:   30 * time.Second,
		KeepAlive: 30 * time.Second,
		Control: func(_, address string, _ syscall.RawConn) error {
			return checkDialled(address, privateOK)
		},
	}
	return d.DialContext(ctx, network, addr)
}

// withHosts makes the relay resolve the given names to the given IP
// addresses, like a hosts file, so tests can aim a name at any address. The
// dialled address is checked as for names resolved by DNS.
func withHosts(hosts map[string]string) Option { return func(r *Relay) { r.hosts = hosts } }
