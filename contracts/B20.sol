// SPDX-License-Identifier: MIT
pragma solidity 0.8.26;

import {ERC20} from "./ERC20.sol";

// Devnet emulation of Base's B20 precompiles (REFERENCE §4.7). Base implements B20 natively; a devnet has
// no precompile, so `launchpad devnet` deploys these contracts and copies their runtime code to the
// documented addresses with `anvil_setCode` (immutables travel with the code; storage starts empty).
// Only what the launchpad uses is emulated: the factory's address derivation (private to the precompile,
// so clients must call `getB20Address`), creation with init calls, the activation feature and the policy
// checks the launch factory relies on.

address constant B20_FACTORY = 0xB20f000000000000000000000000000000000000;
address constant B20_ACTIVATION_REGISTRY = 0x8453000000000000000000000000000000000001;
address constant B20_POLICY_REGISTRY = 0x8453000000000000000000000000000000000002;
bytes32 constant B20_ASSET_FEATURE = keccak256("base.b20_asset");

/// @notice Features switched on or off by the chain's governance (here: the devnet's admin).
contract B20ActivationRegistry {
    address public immutable admin;
    mapping(bytes32 => bool) public isActive;

    event FeatureActivationChanged(bytes32 indexed feature, bool active);

    error NotAdmin();

    constructor(address admin_) {
        admin = admin_;
    }

    function setActive(bytes32 feature, bool active) external {
        if (msg.sender != admin) revert NotAdmin();
        isActive[feature] = active;
        emit FeatureActivationChanged(feature, active);
    }
}

/// @notice Transfer and mint policies per asset; the launchpad requires none.
contract B20PolicyRegistry {
    mapping(address => address) public transferPolicy;
    mapping(address => address) public mintPolicy;
}

/// @notice A B20 asset: an ERC-20 with a supply cap, roles, and the ERC-7572 metadata the launchpad sets.
/// Functions the launch factory calls keep the launch token's names, so the factory core drives both.
contract B20Token is ERC20 {
    bytes32 public constant DEFAULT_ADMIN_ROLE = 0x00;
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    bytes32 public constant METADATA_ROLE = keccak256("METADATA_ROLE");

    address public immutable b20Factory;
    uint8 public decimals;
    uint256 public totalSupply;
    uint256 public supplyCap;
    string public contractURI;
    bool public initializing = true;
    mapping(bytes32 => mapping(address => bool)) public hasRole;
    mapping(string => string) private _extraMetadata;

    event NameUpdated(string name);
    event SymbolUpdated(string symbol);
    event ContractURIUpdated();
    event ExtraMetadataUpdated(string key, string value);
    event RoleGranted(bytes32 indexed role, address indexed account);

    error Unauthorized(bytes32 role);
    error SupplyCapExceeded(uint256 cap, uint256 supply);

    constructor() ERC20("", "") {
        b20Factory = msg.sender;
    }

    /// Init calls run from the B20 factory while the asset is being created; afterwards roles decide.
    modifier only(bytes32 role) {
        if (!(initializing && msg.sender == b20Factory) && !hasRole[role][msg.sender]) revert Unauthorized(role);
        _;
    }

    function initialize(string calldata name_, string calldata symbol_, address admin, uint8 decimals_) external {
        if (msg.sender != b20Factory || !initializing) revert Unauthorized(DEFAULT_ADMIN_ROLE);
        name = name_;
        symbol = symbol_;
        decimals = decimals_;
        if (admin != address(0)) hasRole[DEFAULT_ADMIN_ROLE][admin] = true;
    }

    function finishInitialization() external {
        if (msg.sender != b20Factory) revert Unauthorized(DEFAULT_ADMIN_ROLE);
        initializing = false;
    }

    function grantRole(bytes32 role, address account) external only(DEFAULT_ADMIN_ROLE) {
        hasRole[role][account] = true;
        emit RoleGranted(role, account);
    }

    function setSupplyCap(uint256 cap) external only(DEFAULT_ADMIN_ROLE) {
        supplyCap = cap;
    }

    function mint(address to, uint256 amount) external only(MINTER_ROLE) {
        totalSupply += amount;
        if (totalSupply > supplyCap) revert SupplyCapExceeded(supplyCap, totalSupply);
        _credit(to, amount);
    }

    function extraMetadata(string calldata key) external view returns (string memory) {
        return _extraMetadata[key];
    }

    function setName(string calldata value) external only(METADATA_ROLE) {
        name = value;
        emit NameUpdated(value);
    }

    function setSymbol(string calldata value) external only(METADATA_ROLE) {
        symbol = value;
        emit SymbolUpdated(value);
    }

    function setContractURI(string calldata value) external only(METADATA_ROLE) {
        contractURI = value;
        emit ContractURIUpdated();
    }

    function setExtraMetadata(string calldata key, string calldata value) external only(METADATA_ROLE) {
        _extraMetadata[key] = value;
        emit ExtraMetadataUpdated(key, value);
    }
}

/// @notice The B20 factory: assets at addresses only it can derive, created with init calls.
contract B20Factory {
    uint8 public constant ASSET = 0;
    bytes32 public constant DANGEROUS_ROLE = keccak256("MINTER_ROLE");

    event B20Created(address indexed asset, address indexed creator, bytes32 salt);

    error FeatureInactive(bytes32 feature);
    error UnsupportedAssetType(uint8 assetType);
    error InitCallFailed(uint256 index, bytes reason);
    error PolicyNotAllowed(address asset);
    error DangerousRole(address asset, address holder);

    /// The address `createB20(assetType, salt, …)` called by `creator` deploys to.
    function getB20Address(uint8 assetType, address creator, bytes32 salt) public view returns (address) {
        bytes32 h = keccak256(
            abi.encodePacked(bytes1(0xff), address(this), _salt(assetType, creator, salt), keccak256(type(B20Token).creationCode))
        );
        return address(uint160(uint256(h)));
    }

    /// `createParams` = abi.encode(name, symbol, admin, decimals) (`encodeAssetCreateParams`).
    function createB20(uint8 assetType, bytes32 salt, bytes calldata createParams, bytes[] calldata initCalls)
        external
        returns (address asset)
    {
        if (!B20ActivationRegistry(B20_ACTIVATION_REGISTRY).isActive(B20_ASSET_FEATURE)) {
            revert FeatureInactive(B20_ASSET_FEATURE);
        }
        if (assetType != ASSET) revert UnsupportedAssetType(assetType);
        (string memory name, string memory symbol, address admin, uint8 decimals) =
            abi.decode(createParams, (string, string, address, uint8));
        B20Token token = new B20Token{salt: _salt(assetType, msg.sender, salt)}();
        asset = address(token);
        token.initialize(name, symbol, admin, decimals);
        for (uint256 i; i < initCalls.length; ++i) {
            (bool ok, bytes memory reason) = asset.call(initCalls[i]);
            if (!ok) revert InitCallFailed(i, reason);
        }
        token.finishInitialization();
        B20PolicyRegistry policies = B20PolicyRegistry(B20_POLICY_REGISTRY);
        if (policies.transferPolicy(asset) != address(0) || policies.mintPolicy(asset) != address(0)) {
            revert PolicyNotAllowed(asset);
        }
        if (token.hasRole(DANGEROUS_ROLE, msg.sender)) revert DangerousRole(asset, msg.sender);
        emit B20Created(asset, msg.sender, salt);
    }

    function _salt(uint8 assetType, address creator, bytes32 salt) private pure returns (bytes32) {
        return keccak256(abi.encode(assetType, creator, salt));
    }
}
