import { eachDatabase } from '../../src/core/testing/harness';

type Obj = Record<string, any>;

/**
 * The cloud app as Nautobot 2.4 serves it: accounts and resource types of a provider (a
 * manufacturer), networks (a parent may not have a parent) and services whose resource type must
 * be enabled for them and whose extra_config must satisfy the type's config_schema, the prefix and
 * network links through their assignment models, and circuit terminations on a cloud network.
 */
eachDatabase('cloud', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  const patch = async (o: Obj, body: object, status = 200) => (await t().patch(path(o), body).expect(status)).body;
  const get = async (p: string) => (await t().get(p).expect(200)).body;
  const path = (o: Obj) => o.url.replace(/^https?:\/\/[^/]+/, '');
  const names = async (p: string) => (await get(p)).results.map((x: Obj) => x.name ?? x.display).sort();
  const NETS = '/api/cloud/cloud-networks/';
  const SERVICES = '/api/cloud/cloud-services/';
  let aws: Obj;
  let azure: Obj;
  let vpcType: Obj;
  let lbType: Obj;
  let account: Obj;

  beforeAll(async () => {
    aws = await post('/api/dcim/manufacturers/', { name: 'AWS' });
    azure = await post('/api/dcim/manufacturers/', { name: 'Azure' });
    vpcType = await post('/api/cloud/cloud-resource-types/', { name: 'VPC', provider: aws.id, content_types: ['cloud.cloudnetwork'] });
    lbType = await post('/api/cloud/cloud-resource-types/', { name: 'ELB', provider: aws.id, content_types: ['cloud.cloudservice'], description: 'load balancer' });
    account = await post('/api/cloud/cloud-accounts/', { name: 'Prod', account_number: '424242', provider: aws.id });
  });

  it('shows accounts and resource types as the reference does, unique by name, their provider protected', async () => {
    expect(account).toMatchObject({ display: 'AWS: Prod - 424242', name: 'Prod', account_number: '424242', description: '', provider: { id: aws.id } });
    expect(account.secrets_group).toBeNull();
    expect(await refuse('/api/cloud/cloud-accounts/', { name: 'Prod', account_number: '1', provider: aws.id })).toEqual({ name: ['cloud account with this Name already exists.'] });
    expect(await refuse('/api/cloud/cloud-accounts/', { name: 'No number', provider: aws.id })).toEqual({ account_number: ['This field is required.'] });
    expect(vpcType).toMatchObject({ display: 'AWS: VPC', content_types: ['cloud.cloudnetwork'], config_schema: null });
    expect(await refuse('/api/cloud/cloud-resource-types/', { name: 'VPC', provider: aws.id, content_types: [] })).toEqual({ name: ['cloud resource type with this Name already exists.'] });
    // Only cloud networks and services take resource types.
    expect(await refuse('/api/cloud/cloud-resource-types/', { name: 'Bad', provider: aws.id, content_types: ['dcim.device'] })).toEqual({ content_types: ['Invalid content type: dcim.device'] });
    expect(await refuse('/api/cloud/cloud-resource-types/', { name: 'Bad', provider: aws.id })).toEqual({ content_types: ['This field is required.'] });
    const empty = await post('/api/cloud/cloud-resource-types/', { name: 'Nothing yet', provider: azure.id, content_types: [] });
    expect(empty.content_types).toEqual([]);
    expect((await get(`/api/dcim/manufacturers/${aws.id}/`)).cloud_account_count).toBe(1);
    await t().del(`/api/dcim/manufacturers/${aws.id}/`).expect(409);
    expect(await names('/api/cloud/cloud-accounts/?provider=AWS')).toEqual(['Prod']);
    expect(await names('/api/cloud/cloud-accounts/?q=4242')).toEqual(['Prod']);
    expect(await names('/api/cloud/cloud-resource-types/?content_types=cloud.cloudservice')).toEqual(['ELB']);
    expect(await names('/api/cloud/cloud-resource-types/?provider=Azure')).toEqual(['Nothing yet']);
    expect(await names('/api/cloud/cloud-resource-types/?q=load')).toEqual(['ELB']);
  });

  it('takes a resource type enabled for the model, and keeps networks two levels deep', async () => {
    const wrong = await refuse(NETS, { name: 'Wrong type', cloud_resource_type: lbType.id, cloud_account: account.id });
    expect(wrong).toEqual({ cloud_resource_type: [`Related object not found using the provided attributes: {'pk': UUID('${lbType.id}')}`] });
    const vpc = await post(NETS, { name: 'vpc-1', cloud_resource_type: vpcType.id, cloud_account: account.id, extra_config: { cidr: '10.0.0.0/16' } });
    expect(vpc).toMatchObject({ display: 'vpc-1', parent: null, prefixes: [], extra_config: { cidr: '10.0.0.0/16' }, cloud_resource_type: { id: vpcType.id }, cloud_account: { id: account.id } });
    const subnet = await post(NETS, { name: 'subnet-1', cloud_resource_type: 'VPC', cloud_account: 'Prod', parent: vpc.id });
    expect(subnet.parent.id).toBe(vpc.id);
    expect(await refuse(NETS, { name: 'subnet-1-a', cloud_resource_type: vpcType.id, cloud_account: account.id, parent: subnet.id })).toEqual({
      parent: ['A CloudNetwork may not be the child of a CloudNetwork that itself has a parent.'],
    });
    expect(await patch(vpc, { parent: vpc.id }, 400)).toEqual({ parent: ['A CloudNetwork may not be its own parent.'] });
    expect(await refuse(NETS, { name: 'vpc-1', cloud_resource_type: vpcType.id, cloud_account: account.id })).toEqual({ name: ['cloud network with this Name already exists.'] });
    // A parent, a resource type and an account in use are protected.
    await t().del(path(vpc)).expect(409);
    await t().del(path(vpcType)).expect(409);
    await t().del(path(account)).expect(409);
    expect(await names(`${NETS}?parent=vpc-1`)).toEqual(['subnet-1']);
    expect(await names(`${NETS}?cloud_resource_type=VPC&cloud_account=Prod`)).toEqual(['subnet-1', 'vpc-1']);
    expect(await names(`${NETS}?q=subnet`)).toEqual(['subnet-1']);
    expect(await names(`${NETS}?q=vpc-1`)).toEqual(['subnet-1', 'vpc-1']); // by its parent's name
    await t().del(path(subnet)).expect(204);
    await t().del(path(vpc)).expect(204);
  });

  it("validates extra_config against the resource type's config_schema with the reference's messages", async () => {
    const schema = { type: 'object', properties: { size: { type: 'integer' }, tier: { enum: ['gold', 'silver'] } }, required: ['size'], additionalProperties: false };
    const typed = await post('/api/cloud/cloud-resource-types/', { name: 'Sized', provider: aws.id, content_types: ['cloud.cloudnetwork', 'cloud.cloudservice'], config_schema: schema });
    const failed = 'Validation according to CloudResourceType Sized config_schema failed.';
    const body = (extra_config: unknown) => ({ name: 'sized', cloud_resource_type: typed.id, cloud_account: account.id, extra_config });
    expect(await refuse(NETS, body({}))).toEqual({ extra_config: [failed, "'size' is a required property"] });
    expect(await refuse(NETS, body({ size: 'big' }))).toEqual({ extra_config: [failed, "'big' is not of type 'integer'"] });
    expect(await refuse(NETS, body(null))).toEqual({ extra_config: [failed, "None is not of type 'object'"] });
    expect(await refuse(NETS, body({ size: 1, tier: 'bronze' }))).toEqual({ extra_config: [failed, "'bronze' is not one of ['gold', 'silver']"] });
    expect(await refuse(NETS, body({ size: 1, color: 'red' }))).toEqual({ extra_config: [failed, "Additional properties are not allowed ('color' was unexpected)"] });
    expect(await refuse(SERVICES, { name: 'svc', cloud_resource_type: typed.id })).toEqual({ extra_config: [failed, "None is not of type 'object'"] });
    const net = await post(NETS, body({ size: 2, tier: 'gold' }));
    // The stored config is checked again whenever the object is saved, against the schema as it is now.
    await patch(typed, { config_schema: { type: 'object', required: ['region'] } });
    expect(await patch(net, { description: 'x' }, 400)).toEqual({ extra_config: ['Validation according to CloudResourceType Sized config_schema failed.', "'region' is a required property"] });
    // Formats are checked (the reference's format checker), and a $schema naming another draft is read as draft 7.
    await patch(typed, { config_schema: { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object', properties: { gw: { type: 'string', format: 'ipv4' } } } });
    expect(await patch(net, { extra_config: { gw: 'nope' } }, 400)).toEqual({ extra_config: [failed, "'nope' is not a 'ipv4'"] });
    expect((await patch(net, { extra_config: { gw: '192.0.2.1' } })).extra_config).toEqual({ gw: '192.0.2.1' });
    await patch(typed, { config_schema: {} });
    expect((await patch(net, { description: 'x' })).description).toBe('x');
    await t().del(path(net)).expect(204);
  });

  it('assigns prefixes to networks and services to networks through their assignment models', async () => {
    const net = await post(NETS, { name: 'vnet', cloud_resource_type: vpcType.id, cloud_account: account.id });
    const other = await post(NETS, { name: 'vnet-2', cloud_resource_type: vpcType.id, cloud_account: account.id });
    const prefix = await post('/api/ipam/prefixes/', { prefix: '10.9.0.0/16', status: 'Active' });
    const pa = await post('/api/cloud/cloud-network-prefix-assignments/', { cloud_network: net.id, prefix: prefix.id });
    expect(pa).toMatchObject({ display: 'vnet: 10.9.0.0/16', cloud_network: { id: net.id }, prefix: { id: prefix.id } });
    expect(await refuse('/api/cloud/cloud-network-prefix-assignments/', { cloud_network: net.id, prefix: prefix.id })).toEqual({
      non_field_errors: ['The fields cloud_network, prefix must make a unique set.'],
    });
    expect((await get(path(net))).prefixes.map((p: Obj) => p.id)).toEqual([prefix.id]);
    expect((await get(`/api/ipam/prefixes/?cloud_networks=vnet`)).results.map((p: Obj) => p.id)).toEqual([prefix.id]);
    expect((await get(`/api/cloud/cloud-network-prefix-assignments/?cloud_network=vnet&prefix=${prefix.id}`)).count).toBe(1);
    expect(await names(`${NETS}?prefixes=${prefix.id}`)).toEqual(['vnet']);
    // The reference's PrefixFilter: by UUID or by the prefix's text.
    expect(await names(`${NETS}?prefixes=10.9.0.0/16`)).toEqual(['vnet']);
    expect(await names(`${NETS}?prefixes=10.8.0.0/16`)).toEqual([]);
    expect(await names(`${NETS}?prefixes__n=10.9.0.0/16`)).toEqual(['vnet-2']);
    expect((await get('/api/cloud/cloud-network-prefix-assignments/?prefix=10.9.0.0/16')).results.map((x: Obj) => x.id)).toEqual([pa.id]);
    expect((await t().get(`${NETS}?prefixes=not-a-prefix`).expect(400)).body).toEqual({ prefixes: ['Select a valid choice. not-a-prefix is not one of the available choices.'] });
    // By text, only among the prefixes the requester may view: a hidden prefix is not found through it.
    const reader = await t().userWith('cloud-reader', [{ types: ['cloud.cloudnetwork', 'cloud.cloudnetworkprefixassignment'], actions: ['view'] }]);
    expect((await t().get(`${NETS}?prefixes=10.9.0.0/16`, reader).expect(200)).body.count).toBe(0);
    expect((await t().get('/api/cloud/cloud-network-prefix-assignments/?prefix=10.9.0.0/16', reader).expect(200)).body.count).toBe(0);

    const lb = await post(SERVICES, { name: 'lb-1', cloud_resource_type: lbType.id, extra_config: { listeners: 2 } });
    expect(lb).toMatchObject({ display: 'lb-1', cloud_account: null, cloud_networks: [], extra_config: { listeners: 2 } });
    expect(await refuse(SERVICES, { name: 'lb-2', cloud_resource_type: vpcType.id })).toHaveProperty('cloud_resource_type');
    const sa = await post('/api/cloud/cloud-service-network-assignments/', { cloud_service: lb.id, cloud_network: net.id });
    expect(sa.display).toBe('vnet: lb-1');
    await post('/api/cloud/cloud-service-network-assignments/', { cloud_service: 'lb-1', cloud_network: 'vnet-2' });
    expect(await refuse('/api/cloud/cloud-service-network-assignments/', { cloud_service: lb.id, cloud_network: net.id })).toEqual({
      non_field_errors: ['The fields cloud_network, cloud_service must make a unique set.'],
    });
    expect((await get(path(lb))).cloud_networks.map((n: Obj) => n.id).sort()).toEqual([net.id, other.id].sort());
    expect(await names(`${SERVICES}?cloud_networks=vnet-2`)).toEqual(['lb-1']);
    expect(await names(`${NETS}?cloud_services=lb-1`)).toEqual(['vnet', 'vnet-2']);
    expect(await names(`${SERVICES}?q=vnet-2`)).toEqual(['lb-1']);
    expect((await get('/api/cloud/cloud-service-network-assignments/?q=lb-1')).count).toBe(2);

    // A service keeps no account once its account goes; links go with their network.
    const spare = await post('/api/cloud/cloud-accounts/', { name: 'Spare', account_number: '1', provider: azure.id });
    const owned = await post(SERVICES, { name: 'owned', cloud_resource_type: lbType.id, cloud_account: spare.id });
    await t().del(path(spare)).expect(204);
    expect((await get(path(owned))).cloud_account).toBeNull();
    await t().del(path(other)).expect(204);
    expect((await get(path(lb))).cloud_networks.map((n: Obj) => n.id)).toEqual([net.id]);
    await t().del(path(net)).expect(204);
    expect((await get('/api/cloud/cloud-network-prefix-assignments/')).count).toBe(0);
    expect((await get(path(lb))).cloud_networks).toEqual([]);
  });

  it('ends a circuit on a cloud network: one of a location, a provider network or a cloud network', async () => {
    const telco = await post('/api/circuits/providers/', { name: 'Cloud telco' });
    const pn = await post('/api/circuits/provider-networks/', { name: 'Backbone', provider: telco.id });
    const ctype = await post('/api/circuits/circuit-types/', { name: 'Direct connect' });
    const circuit = await post('/api/circuits/circuits/', { cid: 'DX-1', provider: telco.id, circuit_type: ctype.id, status: 'Active' });
    const other = await post('/api/circuits/circuits/', { cid: 'DX-2', provider: telco.id, circuit_type: ctype.id, status: 'Active' });
    const siteType = await post('/api/dcim/location-types/', { name: 'Cloud site', content_types: ['circuits.circuittermination'] });
    const site = await post('/api/dcim/locations/', { name: 'DC1', location_type: siteType.id, status: 'Active' });
    const net = await post(NETS, { name: 'dx-vpc', cloud_resource_type: vpcType.id, cloud_account: account.id });
    const TERMS = '/api/circuits/circuit-terminations/';
    expect(await refuse(TERMS, { circuit: circuit.id, term_side: 'A', location: site.id, cloud_network: net.id })).toEqual({
      __all__: ['A circuit termination cannot attach to both a location and a cloud network.'],
    });
    expect(await refuse(TERMS, { circuit: circuit.id, term_side: 'A', provider_network: pn.id, cloud_network: net.id })).toEqual({
      __all__: ['A circuit termination cannot attach to both a provider network and a cloud network.'],
    });
    expect(await refuse(TERMS, { circuit: circuit.id, term_side: 'A', location: site.id, provider_network: pn.id, cloud_network: net.id })).toEqual({
      __all__: ['A circuit termination cannot attach to both a location and a provider network.'],
    });
    const a = await post(TERMS, { circuit: circuit.id, term_side: 'A', cloud_network: net.id });
    expect(a).toMatchObject({ display: 'Termination A: dx-vpc', cloud_network: { id: net.id }, location: null, provider_network: null });
    await post(TERMS, { circuit: other.id, term_side: 'A', location: site.id });
    expect((await get(`${TERMS}?cloud_network=dx-vpc`)).results.map((x: Obj) => x.id)).toEqual([a.id]);
    expect((await get(`${TERMS}?cloud_network=${net.id}`)).results.map((x: Obj) => x.id)).toEqual([a.id]);
    expect((await get(`/api/circuits/circuits/?cloud_network=dx-vpc`)).results.map((x: Obj) => x.cid)).toEqual(['DX-1']);
    // The network is protected while a termination is on it; Nautobot 2.4.36 lets such a termination be cabled.
    await t().del(path(net)).expect(409);
    const maker = await post('/api/dcim/manufacturers/', { name: 'Cloud router maker' });
    const dtype = await post('/api/dcim/device-types/', { manufacturer: maker.id, model: 'Cloud router' });
    const role = await post('/api/extras/roles/', { name: 'Cloud edge', content_types: ['dcim.device'] });
    const siteType2 = await post('/api/dcim/location-types/', { name: 'Cloud device site', content_types: ['dcim.device'] });
    const site2 = await post('/api/dcim/locations/', { name: 'DC2', location_type: siteType2.id, status: 'Active' });
    const device = await post('/api/dcim/devices/', { name: 'cloud-edge', device_type: dtype.id, role: role.id, status: 'Active', location: site2.id });
    const iface = await post('/api/dcim/interfaces/', { device: device.id, name: 'eth0', type: '1000base-t', status: 'Active' });
    await post('/api/dcim/cables/', { termination_a_type: 'dcim.interface', termination_a_id: iface.id, termination_b_type: 'circuits.circuittermination', termination_b_id: a.id, status: 'Connected' });
  });
});
