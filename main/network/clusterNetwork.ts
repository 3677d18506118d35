// The cluster's address plan: the Docker network's 10.X.0.0/16, pods in the lower half (Docker's
// IPAM), Services in the upper half. The subnet is remembered in the data dir, so Service IPs
// stay valid across restarts, across a recreated Docker network, and even when Docker is down at
// the first start (the plan is then made from the host's routes alone). Fixed Service addresses
// follow upstream: the `kubernetes` Service takes the first address of the range, cluster DNS the
// tenth (kubeadm's convention, 10.96.0.10 on a default cluster).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chooseSubnet, hostNetworks, splitSubnet } from '../../shared/net/subnets';
import { indexedIpv4, parseCidr } from '../../shared/net/ipv4';

export interface NetworkPlan {
  subnet: string;
  gateway: string;
  podRange: string;
  serviceRange: string;
  kubernetesServiceIp: string;
  dnsServiceIp: string;
}

export function networkDirectory(dataDir: string): string {
  return join(dataDir, 'network');
}

function subnetFile(dataDir: string): string {
  return join(networkDirectory(dataDir), 'subnet');
}

export function rememberedSubnet(dataDir: string): string | undefined {
  const path = subnetFile(dataDir);
  if (!existsSync(path)) return undefined;
  const text = readFileSync(path, 'utf8').trim();
  const cidr = parseCidr(text);
  return cidr && cidr.prefix === 16 ? text : undefined;
}

export function rememberSubnet(dataDir: string, subnet: string): void {
  if (rememberedSubnet(dataDir) === subnet) return;
  mkdirSync(networkDirectory(dataDir), { recursive: true, mode: 0o700 });
  writeFileSync(subnetFile(dataDir), `${subnet}\n`, { mode: 0o600 });
}

export function planFor(subnet: string): NetworkPlan {
  const { gateway, podRange, serviceRange } = splitSubnet(subnet);
  return { subnet, gateway, podRange, serviceRange, kubernetesServiceIp: indexedIpv4(serviceRange, 1), dnsServiceIp: indexedIpv4(serviceRange, 10) };
}

/**
 * The plan for this data dir: the subnet the Docker network really has (`actual`, when Docker
 * answered), else the remembered one, else a fresh choice that avoids the host's own routes.
 */
export function resolveNetworkPlan(dataDir: string, clusterId: string, actual: string | undefined): NetworkPlan {
  const subnet = actual ?? rememberedSubnet(dataDir) ?? chooseSubnet(hostNetworks(), `${clusterId}/plan`);
  if (!subnet) throw new Error('no free 10.x.0.0/16 subnet for the cluster network');
  rememberSubnet(dataDir, subnet);
  return planFor(subnet);
}
