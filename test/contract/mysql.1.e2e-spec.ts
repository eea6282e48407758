import { contractShard } from './shard';

// One shard of the models' contract on one database: the file's name says which.
contractShard(__filename);
