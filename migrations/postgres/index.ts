import { Foundation1763769600000 } from './1763769600000-foundation';
import { CustomFields1763769700000 } from './1763769700000-custom-fields';
import { Notes1763769800000 } from './1763769800000-notes';
import { Ipam1763856000000 } from './1763856000000-ipam';
import { Identity1763942400000 } from './1763942400000-identity';
import { ChangeNotifications1764028800000 } from './1764028800000-change-notifications';
import { CustomFieldNotifications1764115200000 } from './1764115200000-custom-field-notifications';
import { IdentityUserLinks1764201600000 } from './1764201600000-identity-user-links';
import { AlignKeysAndIndexes1795582205013 } from './1795582205013-align-keys-and-indexes';
import { ManufacturersAndPlatforms1795582638408 } from './1795582638408-manufacturers-and-platforms';
import { AuthThrottleAndTokenSecret1795594043821 } from './1795594043821-auth-throttle-and-token-secret';
import { RacksAndPower1795596271975 } from './1795596271975-racks-and-power';
import { DeviceTypes1795597750790 } from './1795597750790-device-types';
import { Devices1795598197623 } from './1795598197623-devices';
import { DcimVirtualChassis1795605462779 } from './1795605462779-dcim-virtual-chassis';
import { DcimComponents1795605635980 } from './1795605635980-dcim-components';
import { DcimCables1795608103786 } from './1795608103786-dcim-cables';
import { DevicePrimaryIps1795609273111 } from './1795609273111-device-primary-ips';
import { IpamVrfDeviceAssignments1795611340085 } from './1795611340085-ipam-vrf-device-assignments';
import { ComponentOrderIndex1795612970859 } from './1795612970859-component-order-index';
import { SoftwareControllersVdcs1795756899110 } from './1795756899110-software-controllers-vdcs';
import { Virtualization1795756906335 } from './1795756906335-virtualization';
import { Circuits1795756972180 } from './1795756972180-circuits';
import { Modules1795757036179 } from './1795757036179-modules';
import { ConfigContexts1795757085114 } from './1795757085114-config-contexts';
import { LocationAssignments1795757821092 } from './1795757821092-location-assignments';
import { Cloud1795758922153 } from './1795758922153-cloud';
import { VmConfigContexts1795759733026 } from './1795759733026-vm-config-contexts';
import { ConfigContextRedundancyGroups1795760167238 } from './1795760167238-config-context-redundancy-groups';
import { IpamServices1795760517241 } from './1795760517241-ipam-services';
import { Wireless1795760604771 } from './1795760604771-wireless';
import { SoftwareOnItemsAndVms1795761048633 } from './1795761048633-software-on-items-and-vms';
import { ObjectChanges1795768978314 } from './1795768978314-object-changes';
import { SecretsAndExternalIntegrations1795768990888 } from './1795768990888-secrets-and-external-integrations';
import { Jobs1795769298651 } from './1795769298651-jobs';
import { ComputedFieldsAndContentTypes1795769711367 } from './1795769711367-computed-fields-and-content-types';
import { Relationships1795771874816 } from './1795771874816-relationships';
import { WebhooksAndJobRetries1795774669818 } from './1795774669818-webhooks-and-job-retries';
import { Views1795781472981 } from './1795781472981-views';
import { HookNotifications1795781492352 } from './1795781492352-hook-notifications';
import { Contacts1795781556896 } from './1795781556896-contacts';
import { DynamicGroups1795781988887 } from './1795781988887-dynamic-groups';
import { GraphqlQueries1795782201219 } from './1795782201219-graphql-queries';
import { Files1795782258163 } from './1795782258163-files';
import { Attachments1795785344449 } from './1795785344449-attachments';
import { IdentityHistoryInChangeLog1795790000000 } from './1795790000000-identity-history-in-change-log';
import { ConfigContextNotifications1795794688071 } from './1795794688071-config-context-notifications';
import { KeptNestedObjects1796518064110 } from './1796518064110-kept-nested-objects';
import { KeptDetailValues1796556503138 } from './1796556503138-kept-detail-values';

/** PostgreSQL (and PGlite) migrations, oldest first. */
export const postgresMigrations = [
  Foundation1763769600000,
  CustomFields1763769700000,
  Notes1763769800000,
  Ipam1763856000000,
  Identity1763942400000,
  ChangeNotifications1764028800000,
  CustomFieldNotifications1764115200000,
  IdentityUserLinks1764201600000,
  AlignKeysAndIndexes1795582205013,
  ManufacturersAndPlatforms1795582638408,
  AuthThrottleAndTokenSecret1795594043821,
  RacksAndPower1795596271975,
  DeviceTypes1795597750790,
  Devices1795598197623,
  DcimVirtualChassis1795605462779,
  DcimComponents1795605635980,
  DcimCables1795608103786,
  DevicePrimaryIps1795609273111,
  IpamVrfDeviceAssignments1795611340085,
  ComponentOrderIndex1795612970859,
  SoftwareControllersVdcs1795756899110,
  Virtualization1795756906335,
  Circuits1795756972180,
  Modules1795757036179,
  ConfigContexts1795757085114,
  LocationAssignments1795757821092,
  Cloud1795758922153,
  VmConfigContexts1795759733026,
  ConfigContextRedundancyGroups1795760167238,
  IpamServices1795760517241,
  Wireless1795760604771,
  SoftwareOnItemsAndVms1795761048633,
  ObjectChanges1795768978314,
  SecretsAndExternalIntegrations1795768990888,
  Jobs1795769298651,
  ComputedFieldsAndContentTypes1795769711367,
  Relationships1795771874816,
  WebhooksAndJobRetries1795774669818,
  Views1795781472981,
  HookNotifications1795781492352,
  Contacts1795781556896,
  DynamicGroups1795781988887,
  GraphqlQueries1795782201219,
  Files1795782258163,
  Attachments1795785344449,
  IdentityHistoryInChangeLog1795790000000,
  ConfigContextNotifications1795794688071,
  KeptNestedObjects1796518064110,
  KeptDetailValues1796556503138,
];
