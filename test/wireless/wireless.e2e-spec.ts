import { eachDatabase } from '../../src/core/testing/harness';

/**
 * Supported data rates, radio profiles, wireless networks and their assignments to controller
 * managed device groups, as Nautobot 2.4 serves them: the reference's fields, defaults, unique
 * sets and messages, the filters the Ansible modules and pynautobot use, and the groups'
 * read-only `radio_profiles` and `wireless_networks`.
 */
eachDatabase('wireless', (t) => {
  const post = async (path: string, body: object) => (await t().post(path, body).expect(201)).body;
  const refuse = async (path: string, body: object) => (await t().post(path, body).expect(400)).body;
  const get = async (path: string) => (await t().get(path).expect(200)).body;
  const ids = async (path: string) => (await get(path)).results.map((o: any) => o.id).sort();
  const names = async (path: string) => (await get(path)).results.map((o: any) => o.display);
  const RATES = '/api/wireless/supported-data-rates/';
  const PROFILES = '/api/wireless/radio-profiles/';
  const NETWORKS = '/api/wireless/wireless-networks/';
  const RP_ASSIGN = '/api/wireless/controller-managed-device-group-radio-profile-assignments/';
  const WN_ASSIGN = '/api/wireless/controller-managed-device-group-wireless-network-assignments/';
  const GROUPS = '/api/dcim/controller-managed-device-groups/';
  let n11ac: any;
  let n11n: any;
  let n11ac2: any;
  let campus: any;
  let floor: any;

  beforeAll(async () => {
    n11ac = await post(RATES, { standard: '802.11ac', rate: 10000 });
    n11n = await post(RATES, { standard: '802.11n', rate: 10000, mcs_index: 3 });
    n11ac2 = await post(RATES, { standard: '802.11ac', rate: 20000, mcs_index: 5 });
    const type = await post('/api/dcim/location-types/', { name: 'Campus', content_types: ['dcim.controller'] });
    const site = await post('/api/dcim/locations/', { name: 'HQ', location_type: type.id, status: 'Active' });
    const wlc = await post('/api/dcim/controllers/', { name: 'wlc1', status: 'Active', location: site.id });
    campus = await post(GROUPS, { name: 'Campus APs', controller: wlc.id });
    floor = await post(GROUPS, { name: 'Floor APs', controller: wlc.id, parent: campus.id });
  });

  it('lists the wireless models under /api/wireless/ with the reference slugs', async () => {
    expect(Object.keys(await get('/api/wireless/')).sort()).toEqual([
      'controller-managed-device-group-radio-profile-assignments',
      'controller-managed-device-group-wireless-network-assignments',
      'radio-profiles',
      'supported-data-rates',
      'wireless-networks',
    ]);
  });

  it('keeps one supported data rate per standard and rate, shown as "<standard>: <rate> Kbps" and ordered by standard then rate', async () => {
    expect(n11n).toMatchObject({ display: '802.11n: 10000 Kbps', standard: { value: '802.11n', label: '802.11n' }, rate: 10000, mcs_index: 3, tags: [] });
    expect(n11ac.mcs_index).toBeNull();
    expect(await refuse(RATES, { standard: '802.11ac', rate: 10000 })).toEqual({ non_field_errors: ['The fields standard, rate must make a unique set.'] });
    expect(await refuse(RATES, { standard: '802.11z', rate: -1 })).toEqual({
      standard: ['802.11z is not a valid choice.'],
      rate: ['Ensure this value is greater than or equal to 0.'],
    });
    expect(await refuse(RATES, {})).toEqual({ standard: ['This field is required.'], rate: ['This field is required.'] });
    expect(await names(RATES)).toEqual(['802.11ac: 10000 Kbps', '802.11ac: 20000 Kbps', '802.11n: 10000 Kbps']);
    // What the Ansible lookup and modules ask: standard and rate together, and `q`.
    expect(await ids(`${RATES}?standard=802.11ac&rate=10000`)).toEqual([n11ac.id]);
    expect(await ids(`${RATES}?q=20000`)).toEqual([n11ac2.id]);
    expect(await ids(`${RATES}?q=11N`)).toEqual([n11n.id]);
    expect(await ids(`${RATES}?q=5`)).toEqual([n11ac2.id]);
    expect((await t().get(`${RATES}?standard=802.11z`).expect(400)).body).toEqual({ standard: ['Select a valid choice. 802.11z is not one of the available choices.'] });
  });

  it('makes radio profiles with lists of channel widths and channels and the data rates they support', async () => {
    const full = await post(PROFILES, {
      name: 'Office 2.4',
      regulatory_domain: 'US',
      frequency: '2.4GHz',
      channel_width: [20, 40],
      allowed_channel_list: [1, 6, 11],
      tx_power_min: 10,
      tx_power_max: 20,
      rx_power_min: -70,
      supported_data_rates: [n11n.id, { standard: '802.11ac', rate: 10000 }],
    });
    expect(full).toMatchObject({
      display: 'Office 2.4',
      regulatory_domain: { value: 'US', label: 'United States (US)' },
      frequency: { value: '2.4GHz', label: '2.4 GHz' },
      channel_width: [20, 40],
      allowed_channel_list: [1, 6, 11],
      tx_power_min: 10,
      tx_power_max: 20,
      rx_power_min: -70,
    });
    // Shown in the data rates' order (standard, rate), as the collection's tests expect.
    expect(full.supported_data_rates.map((r: any) => r.id)).toEqual([n11ac.id, n11n.id]);
    const bare = await post(PROFILES, { name: 'Lab', regulatory_domain: 'GB' });
    expect(bare).toMatchObject({ frequency: null, channel_width: null, allowed_channel_list: null, supported_data_rates: [], tx_power_min: null });

    expect(await refuse(PROFILES, { name: 'Office 2.4', regulatory_domain: 'GB' })).toEqual({ name: ['radio profile with this Name already exists.'] });
    expect(await refuse(PROFILES, { name: 'Other', regulatory_domain: 'XX' })).toEqual({ regulatory_domain: ['XX is not a valid choice.'] });
    expect(await refuse(PROFILES, { name: 'Other' })).toEqual({ regulatory_domain: ['This field is required.'] });
    expect(await refuse(PROFILES, { name: 'Other', regulatory_domain: 'US', frequency: '7GHz', channel_width: [20, 30], allowed_channel_list: 'all' })).toEqual({
      frequency: ['7GHz is not a valid choice.'],
      channel_width: ['30 is not a valid choice.'],
      allowed_channel_list: ['Expected a list of items but got type "str".'],
    });
    expect(await refuse(PROFILES, { name: 'Other', regulatory_domain: 'US', allowed_channel_list: [1, 'x'] })).toEqual({ allowed_channel_list: ['A valid integer is required.'] });

    // OPTIONS shows the lists with their items' type and choices: the Ansible module checks channel widths against them.
    const meta = (await t().http.options(PROFILES).set('Authorization', `Token ${t().token}`).expect(200)).body.actions.POST;
    expect(meta.channel_width).toMatchObject({
      type: 'list',
      child: { type: 'choice', choices: [{ value: 20, display: '20 MHz' }, { value: 40, display: '40 MHz' }, { value: 80, display: '80 MHz' }, { value: 160, display: '160 MHz' }] },
    });
    expect(meta.allowed_channel_list).toMatchObject({ type: 'list', child: { type: 'integer' } });
    expect(meta.supported_data_rates).toMatchObject({ type: 'list', read_only: false });
    const schema = (await get('/api/swagger.json')).components.schemas.WritableRadioProfileRequest.properties;
    expect(schema.channel_width).toMatchObject({ type: 'array', items: { enum: [20, 40, 80, 160] } });
    expect(schema.allowed_channel_list).toMatchObject({ type: 'array', items: { type: 'integer' } });

    // Writing the data rates replaces them; an empty list clears the widths.
    const changed = (await t().patch(`${PROFILES}${full.id}/`, { supported_data_rates: [n11ac2.id], channel_width: [] }).expect(200)).body;
    expect(changed.supported_data_rates.map((r: any) => r.id)).toEqual([n11ac2.id]);
    expect(changed.channel_width).toEqual([]);
    // Items as the reference's fields take them: numbers as text, a choice as {"value": ...}.
    const lenient = (await t().patch(`${PROFILES}${full.id}/`, { channel_width: ['40', { value: 80 }], allowed_channel_list: ['36', 40] }).expect(200)).body;
    expect(lenient).toMatchObject({ channel_width: [40, 80], allowed_channel_list: [36, 40] });
    expect(await refuse(PROFILES, { name: 'Other', regulatory_domain: 'US', allowed_channel_list: [{ value: 1 }] })).toEqual({ allowed_channel_list: ['A valid integer is required.'] });

    expect(await ids(`${PROFILES}?channel_width=80`)).toEqual([full.id]);
    expect(await ids(`${PROFILES}?channel_width=160`)).toEqual([]);
    expect((await t().get(`${PROFILES}?channel_width=wide`).expect(400)).body).toEqual({ channel_width: ['Enter a number.'] });
    expect(await ids(`${PROFILES}?frequency=2.4GHz`)).toEqual([full.id]);
    expect(await ids(`${PROFILES}?regulatory_domain=GB`)).toEqual([bare.id]);
    expect(await ids(`${PROFILES}?supported_data_rates=${n11ac2.id}`)).toEqual([full.id]);
    expect(await ids(`${PROFILES}?q=gb`)).toEqual([bare.id]);
    // The data rates' reverse filters.
    expect(await ids(`${RATES}?radio_profiles=Office 2.4`)).toEqual([n11ac2.id]);
    expect(await ids(`${RATES}?has_radio_profiles=false`)).toEqual([n11ac.id, n11n.id].sort());
    // A data rate in use goes with its profiles' links, not with the profiles.
    const gone = await post(RATES, { standard: '802.11be', rate: 1 });
    await t().patch(`${PROFILES}${bare.id}/`, { supported_data_rates: [gone.id] }).expect(200);
    await t().del(`${RATES}${gone.id}/`).expect(204);
    expect((await get(`${PROFILES}${bare.id}/`)).supported_data_rates).toEqual([]);
  });

  it('makes wireless networks with the reference defaults, choices and tenant', async () => {
    const tenant = await post('/api/tenancy/tenants/', { name: 'Guests' });
    const corp = await post(NETWORKS, { name: 'Corp', ssid: 'CORP', mode: 'Central', authentication: 'WPA2 Enterprise' });
    expect(corp).toMatchObject({ display: 'Corp', ssid: 'CORP', description: '', enabled: true, hidden: false, tenant: null, mode: { value: 'Central', label: 'Central' }, authentication: { value: 'WPA2 Enterprise', label: 'WPA2 Enterprise' } });
    expect(corp.secrets_group).toBeNull();
    const guest = await post(NETWORKS, { name: 'Guest', ssid: 'guest-wifi', mode: 'Local (Flex)', authentication: 'Open', enabled: false, hidden: true, tenant: tenant.id, description: 'for visitors' });
    expect(await refuse(NETWORKS, { name: 'Corp', ssid: 'x', mode: 'Mesh', authentication: 'Open' })).toEqual({ name: ['wireless network with this Name already exists.'] });
    expect(await refuse(NETWORKS, { name: 'Other' })).toEqual({
      ssid: ['This field is required.'],
      mode: ['This field is required.'],
      authentication: ['This field is required.'],
    });
    expect(await refuse(NETWORKS, { name: 'Other', ssid: 'x', mode: 'Ad hoc', authentication: 'WEP' })).toEqual({
      mode: ['Ad hoc is not a valid choice.'],
      authentication: ['WEP is not a valid choice.'],
    });
    expect(await ids(`${NETWORKS}?enabled=false`)).toEqual([guest.id]);
    expect(await ids(`${NETWORKS}?hidden=false`)).toEqual([corp.id]);
    expect(await ids(`${NETWORKS}?mode=Local (Flex)`)).toEqual([guest.id]);
    expect(await ids(`${NETWORKS}?authentication=Open&authentication=WPA2 Enterprise`)).toEqual([corp.id, guest.id].sort());
    expect(await ids(`${NETWORKS}?tenant=Guests`)).toEqual([guest.id]);
    expect(await ids(`${NETWORKS}?q=WIFI`)).toEqual([guest.id]);
    expect(await ids(`${NETWORKS}?q=visitors`)).toEqual([guest.id]);
    await t().del(`/api/tenancy/tenants/${tenant.id}/`).expect(409);
  });

  it('assigns radio profiles and wireless networks to controller managed device groups, once each, and shows them on the groups (read-only there)', async () => {
    const profile = await post(PROFILES, { name: 'Hall 5GHz', regulatory_domain: 'US', frequency: '5GHz' });
    const network = await post(NETWORKS, { name: 'IoT', ssid: 'iot', mode: 'Fabric', authentication: 'WPA3 SAE' });
    const vlan = await post('/api/ipam/vlans/', { vid: 300, name: 'iot', status: 'Active' });

    const rp = await post(RP_ASSIGN, { controller_managed_device_group: campus.id, radio_profile: { name: 'Hall 5GHz' } });
    expect(rp).toMatchObject({ display: 'Campus APs: Hall 5GHz', controller_managed_device_group: { id: campus.id }, radio_profile: { id: profile.id } });
    expect(rp).not.toHaveProperty('tags');
    expect(rp).not.toHaveProperty('custom_fields');
    expect(await refuse(RP_ASSIGN, { controller_managed_device_group: campus.id, radio_profile: profile.id })).toEqual({
      non_field_errors: ['The fields controller_managed_device_group, radio_profile must make a unique set.'],
    });
    expect(await refuse(RP_ASSIGN, {})).toEqual({ controller_managed_device_group: ['This field is required.'], radio_profile: ['This field is required.'] });
    const wn = await post(WN_ASSIGN, { controller_managed_device_group: floor.id, wireless_network: network.id, vlan: vlan.id });
    expect(wn).toMatchObject({ display: 'Floor APs: IoT', vlan: { id: vlan.id } });
    expect(await refuse(WN_ASSIGN, { controller_managed_device_group: floor.id, wireless_network: network.id })).toEqual({
      non_field_errors: ['The fields controller_managed_device_group, wireless_network must make a unique set.'],
    });
    const wn2 = await post(WN_ASSIGN, { controller_managed_device_group: campus.id, wireless_network: network.id });
    expect(wn2.vlan).toBeNull();

    const group = await get(`${GROUPS}${campus.id}/`);
    expect(group.radio_profiles.map((p: any) => p.id)).toEqual([profile.id]);
    expect(group.wireless_networks.map((n: any) => n.id)).toEqual([network.id]);
    expect((await get(`${GROUPS}${floor.id}/`)).radio_profiles).toEqual([]);
    // Read-only on the group: set through the assignments.
    const other = await post(PROFILES, { name: 'Other profile', regulatory_domain: 'US' });
    const patched = (await t().patch(`${GROUPS}${floor.id}/`, { radio_profiles: [other.id], description: 'floor' }).expect(200)).body;
    expect(patched).toMatchObject({ description: 'floor', radio_profiles: [] });

    // Filters both ways, by name or id.
    expect(await ids(`${RP_ASSIGN}?controller_managed_device_group=Campus APs&radio_profile=Hall 5GHz`)).toEqual([rp.id]);
    expect(await ids(`${WN_ASSIGN}?wireless_network=IoT`)).toEqual([wn.id, wn2.id].sort());
    expect(await ids(`${WN_ASSIGN}?vlan=${vlan.id}`)).toEqual([wn.id]);
    expect(await ids(`${WN_ASSIGN}?q=floor`)).toEqual([wn.id]);
    expect(await ids(`${RP_ASSIGN}?q=hall`)).toEqual([rp.id]);
    expect(await ids(`${GROUPS}?radio_profiles=Hall 5GHz`)).toEqual([campus.id]);
    expect(await ids(`${GROUPS}?wireless_networks=${network.id}`)).toEqual([campus.id, floor.id].sort());
    expect(await ids(`${GROUPS}?has_radio_profiles=false`)).toEqual([floor.id]);
    expect(await ids(`${GROUPS}?has_wireless_networks=true`)).toEqual([campus.id, floor.id].sort());
    expect(await ids(`${PROFILES}?controller_managed_device_groups=Campus APs`)).toEqual([profile.id]);
    expect(await ids(`${PROFILES}?has_controller_managed_device_groups=true`)).toEqual([profile.id]);
    expect(await ids(`${NETWORKS}?controller_managed_device_groups=Floor APs`)).toEqual([network.id]);

    // A VLAN in use is protected; a profile or network takes its assignments with it; so does a group.
    await t().del(`/api/ipam/vlans/${vlan.id}/`).expect(409);
    await t().del(`${PROFILES}${profile.id}/`).expect(204);
    await t().get(`${RP_ASSIGN}${rp.id}/`).expect(404);
    await t().del(`${GROUPS}${floor.id}/`).expect(204);
    await t().get(`${WN_ASSIGN}${wn.id}/`).expect(404);
    expect(await ids(WN_ASSIGN)).toEqual([wn2.id]);
    await t().del(`${NETWORKS}${network.id}/`).expect(204);
    expect(await ids(WN_ASSIGN)).toEqual([]);
    await t().del(`/api/ipam/vlans/${vlan.id}/`).expect(204);
  });
});
